import fc from 'fast-check';
import { InvalidArgumentError } from '../../../../../../src/domain/shared/errors';
import { parseTomlRuncOptions } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/runc-options-toml';

const SOURCE = 'runtime options file /etc/skiff/crun.toml';
const parse = (text: string) => parseTomlRuncOptions(text, SOURCE);

describe('runtime options in TOML (the runc options by their Go names)', () => {
  it('takes every field of containerd.runc.v1.Options, and nothing for an empty text', () => {
    expect(parse('')).toEqual({});
    expect(
      parse(
        [
          'BinaryName = "crun"',
          'SystemdCgroup = true',
          'Root = "/run/other"',
          'NoPivotRoot = true',
          'NoNewKeyring = false',
          'ShimCgroup = "/shim"',
          'IoUid = 1000',
          'IoGid = 0',
          'CriuPath = "/usr/sbin/criu"',
          "CriuImagePath = '/var/images'",
          'CriuWorkPath = "/var/work"',
        ].join('\n'),
      ),
    ).toEqual({
      BinaryName: 'crun',
      SystemdCgroup: true,
      Root: '/run/other',
      NoPivotRoot: true,
      NoNewKeyring: false,
      ShimCgroup: '/shim',
      IoUid: 1000,
      IoGid: 0,
      CriuPath: '/usr/sbin/criu',
      CriuImagePath: '/var/images',
      CriuWorkPath: '/var/work',
    });
  });

  it("matches keys without regard to case, as containerd's decoder does for runc", () => {
    expect(parse('binaryname = "crun"\nsystemdCgroup = true')).toEqual({ BinaryName: 'crun', SystemdCgroup: true });
  });

  it("ignores runtimeoptions' own keys, which CRI's config_body (the whole options table) may hold", () => {
    expect(parse('TypeUrl = "x"\nConfigPath = ""\nSystemdCgroup = true')).toEqual({ SystemdCgroup: true });
  });

  it('refuses an unknown key, naming it, the source and the keys', () => {
    const run = () => parse('SystemdCgroup = true\nBinary = "crun"');
    expect(run).toThrow(InvalidArgumentError);
    expect(run).toThrow(
      'runtime options file /etc/skiff/crun.toml: unknown key "Binary"; the keys are BinaryName, SystemdCgroup, Root,',
    );
    expect(() => parse('[runc]\nBinaryName = "x"')).toThrow(/unknown key "runc"/);
  });

  it('refuses a value of the wrong type, naming the key and what it must be', () => {
    expect(() => parse('SystemdCgroup = "true"')).toThrow(
      'runtime options file /etc/skiff/crun.toml: SystemdCgroup must be true or false, not the string "true"',
    );
    expect(() => parse('BinaryName = 1')).toThrow(/BinaryName must be a string, not 1$/);
    expect(() => parse('IoUid = -1')).toThrow(/IoUid must be an integer from 0 to 4294967295, not -1$/);
    expect(() => parse('IoGid = 4294967296')).toThrow(/IoGid must be an integer/);
    expect(() => parse('IoGid = 1.5')).toThrow(/IoGid must be an integer/);
    expect(() => parse('Root = ["a"]')).toThrow(/Root must be a string, not an array$/);
    expect(() => parse('Root = { a = 1 }')).toThrow(/Root must be a string, not a table$/);
    expect(() => parse('Root = 1979-05-27')).toThrow(/Root must be a string, not a date$/);
  });

  it('refuses a key given twice in two cases', () => {
    expect(() => parse('BinaryName = "a"\nbinaryname = "b"')).toThrow(/BinaryName is given twice \(as "binaryname"\)/);
  });

  it('refuses a text that is not TOML in one line, with where', () => {
    const run = () => parse('BinaryName = "crun"\nSystemdCgroup = \n');
    expect(run).toThrow(InvalidArgumentError);
    expect(run).toThrow(/^runtime options file \/etc\/skiff\/crun.toml is not TOML \(line 2, column \d+: [^\n]+\)$/);
    expect(() => parse('BinaryName = "a"\nBinaryName = "b"')).toThrow(/is not TOML \(line 2/);
    expect(() => parse('__proto__ = 1')).toThrow(/is not TOML/);
  });
});

/**
 * The text comes from a file or containerd's config the shim does not own: any text either reads
 * as options of the right types or is refused as an InvalidArgument naming its source, in one line.
 */
describe('runtime options TOML on arbitrary text (property)', () => {
  const KEY = fc.constantFrom('BinaryName', 'systemdcgroup', 'IoUid', 'Root', 'ConfigPath', 'Foo', '"a.b"', 'a.b');
  const VALUE = fc.constantFrom(
    '"crun"',
    'true',
    '1',
    '-1',
    '4294967296',
    '[1]',
    '{}',
    '1979-05-27',
    "'x'",
    '"\\u0000"',
  );
  const text = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 80 }),
    fc
      .array(
        fc.oneof(
          fc.tuple(KEY, VALUE).map(([k, v]) => `${k} = ${v}`),
          fc.constantFrom('[t]', '#', '=', ''),
        ),
        {
          maxLength: 6,
        },
      )
      .map((lines) => lines.join('\n')),
  );
  const TYPES: Record<string, string> = {
    BinaryName: 'string',
    SystemdCgroup: 'boolean',
    IoUid: 'number',
    Root: 'string',
  };

  it('reads typed options or refuses with an InvalidArgument naming the source', () => {
    fc.assert(
      fc.property(text, (t) => {
        let options: Record<string, unknown>;
        try {
          options = { ...parse(t) };
        } catch (err) {
          expect(err).toBeInstanceOf(InvalidArgumentError);
          expect((err as Error).message.startsWith(SOURCE)).toBe(true);
          expect((err as Error).message).not.toContain('\n');
          return;
        }
        for (const [key, value] of Object.entries(options)) expect([key, typeof value]).toEqual([key, TYPES[key]]);
      }),
      { numRuns: 300 },
    );
  });
});
