import { InvalidArgumentError } from '../../../../../../src/domain/shared/errors';
import { readRuncOptions } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/runc-options';
import { containerd } from '../../../../../../src/adapters/shim/wire/proto/generated/containerd/runc';
import { runtimeoptions } from '../../../../../../src/adapters/shim/wire/proto/generated/containerd/runtimeoptions';
import { containerd as runctypes } from '../../../../../../src/adapters/shim/wire/proto/generated/containerd/runctypes';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const options = (fields: ConstructorParameters<typeof containerd.runc.v1.Options>[0]) => ({
  typeUrl: 'containerd.runc.v1.Options',
  value: new containerd.runc.v1.Options(fields).serialize(),
});

describe("the runc runtime's reading of containerd.runc.v1.Options", () => {
  it('takes none, or empty ones, as the defaults', () => {
    expect(readRuncOptions(undefined, 'task "t"')).toEqual({ binary: undefined, systemdCgroup: false });
    expect(readRuncOptions(options({}), 'task "t"')).toEqual({ binary: undefined, systemdCgroup: false });
  });

  it('takes binary_name (a path, or a name looked up in PATH) and systemd_cgroup', () => {
    expect(readRuncOptions(options({ binary_name: '/opt/runc', systemd_cgroup: true }), 't')).toEqual({
      binary: '/opt/runc',
      systemdCgroup: true,
    });
    expect(readRuncOptions(options({ binary_name: 'sh' }), 't').binary).toMatch(/\/sh$/);
  });

  it("takes criu_work_path, a restore's criu work directory (criu_image_path is containerd's own)", () => {
    const read = readRuncOptions(options({ criu_work_path: '/var/lib/w', criu_image_path: '/i' }), 't');
    expect(read).toEqual({ binary: undefined, systemdCgroup: false, criuWorkPath: '/var/lib/w' });
  });

  it('refuses options of another type, naming the three it takes', () => {
    expect(() => readRuncOptions({ typeUrl: 'io.example.Options', value: new Uint8Array([8, 1]) }, 'task "t"')).toThrow(
      'send containerd.runc.v1.Options, runtimeoptions.v1.Options, containerd.linux.runc.CreateOptions or none',
    );
  });

  it('takes io_uid and io_gid, from runc options and from the CreateOptions `ctr run --uidmap/--gidmap` sends skiff', () => {
    expect(readRuncOptions(options({ io_uid: 100000, io_gid: 100001 }), 't')).toEqual({
      binary: undefined,
      systemdCgroup: false,
      ioUid: 100000,
      ioGid: 100001,
    });
    const create = (fields: ConstructorParameters<typeof runctypes.linux.runc.CreateOptions>[0]) => ({
      typeUrl: 'containerd.linux.runc.CreateOptions',
      value: new runctypes.linux.runc.CreateOptions(fields).serialize(),
    });
    expect(readRuncOptions(create({ io_uid: 100000, io_gid: 100000, no_pivot_root: true }), 't')).toEqual({
      binary: undefined,
      systemdCgroup: false,
      ioUid: 100000,
      ioGid: 100000,
    });
    expect(readRuncOptions(create({}), 't')).toEqual({ binary: undefined, systemdCgroup: false });
    expect(() =>
      readRuncOptions({ typeUrl: 'containerd.linux.runc.CreateOptions', value: new Uint8Array([0xff]) }, 'task "t"'),
    ).toThrow(/^task "t": runtime options \(containerd.linux.runc.CreateOptions\) do not decode/);
  });

  it('refuses options of another type, or a binary_name not in PATH, naming the task', () => {
    const wrongType = { typeUrl: 'io.example.Options', value: new Uint8Array([8, 1]) };
    expect(() => readRuncOptions(wrongType, 'task "t"')).toThrow(InvalidArgumentError);
    expect(() => readRuncOptions(wrongType, 'task "t"')).toThrow(
      /^task "t": runtime options of type "io.example.Options"/,
    );
    expect(() => readRuncOptions(options({ binary_name: 'no-such-runc-here' }), 'task "t"')).toThrow(
      /no-such-runc-here/,
    );
  });
});

const generic = (fields: ConstructorParameters<typeof runtimeoptions.v1.Options>[0]) => ({
  typeUrl: 'runtimeoptions.v1.Options',
  value: new runtimeoptions.v1.Options(fields).serialize(),
});
const body = (text: string) => generic({ config_body: Buffer.from(text) });

describe("the runc runtime's reading of runtimeoptions.v1.Options (TOML with the runc options' names)", () => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-options-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("takes SystemdCgroup and BinaryName from config_body (CRI's handler options)", () => {
    expect(readRuncOptions(body('SystemdCgroup = true\nConfigPath = ""'), 't')).toEqual({
      binary: undefined,
      systemdCgroup: true,
    });
    expect(readRuncOptions(body('BinaryName = "sh"'), 't').binary).toMatch(/^\/.*\/sh$/);
    expect(readRuncOptions(body('BinaryName = "/bin/sh"'), 't').binary).toBe('/bin/sh');
    expect(readRuncOptions(body(''), 't')).toEqual({ binary: undefined, systemdCgroup: false });
  });

  it("accepts the options it does not act on (Root among them: containers stay under skiff's runc root); CriuWorkPath is a restore's", () => {
    const text =
      'Root = "/x"\nNoPivotRoot = true\nNoNewKeyring = true\nShimCgroup = "/s"\nIoUid = 1\nIoGid = 2\nCriuImagePath = "/i"\nCriuWorkPath = "/w"';
    expect(readRuncOptions(body(text), 't')).toEqual({ binary: undefined, systemdCgroup: false, criuWorkPath: '/w' });
  });

  it('reads the file config_path names (relative: to the bundle), which wins over config_body', () => {
    writeFileSync(join(dir, 'crun.toml'), 'BinaryName = "/bin/sh"\nSystemdCgroup = true\n');
    expect(
      readRuncOptions(generic({ config_path: join(dir, 'crun.toml'), config_body: Buffer.from('Nope = 1') }), 't'),
    ).toEqual({
      binary: '/bin/sh',
      systemdCgroup: true,
    });
    expect(readRuncOptions(generic({ config_path: 'crun.toml' }), 't', dir).binary).toBe('/bin/sh');
  });

  it('refuses, naming the task, the file or the handler options, and the key', () => {
    const file = join(dir, 'bad.toml');
    writeFileSync(file, 'BinaryName = "no-such-oci-runtime-here"\n');
    const missing = () => readRuncOptions(generic({ config_path: file }), 'task "t"');
    expect(missing).toThrow(InvalidArgumentError);
    expect(missing).toThrow(
      `task "t": runtime options file ${file}: BinaryName "no-such-oci-runtime-here" is not in PATH`,
    );
    expect(() => readRuncOptions(body('BinaryName = "/no/such/crun"'), 'task "t"')).toThrow(
      'task "t": the handler\'s options: BinaryName "/no/such/crun" is not an executable file',
    );
    expect(() => readRuncOptions(body('SystemdCgroup = 1'), 'task "t"')).toThrow(
      'task "t": the handler\'s options: SystemdCgroup must be true or false, not 1',
    );
    expect(() => readRuncOptions(body('Foo = 1'), 'task "t"')).toThrow(
      /^task "t": the handler's options: unknown key "Foo"/,
    );
    expect(() => readRuncOptions(generic({ config_path: join(dir, 'none.toml') }), 'task "t"')).toThrow(
      `task "t": runtime options file ${join(dir, 'none.toml')} cannot be read (no such file)`,
    );
    writeFileSync(join(dir, 'not.toml'), '{"BinaryName": "crun"}');
    expect(() => readRuncOptions(generic({ config_path: join(dir, 'not.toml') }), 'task "t"')).toThrow(
      new RegExp(`^task "t": runtime options file ${join(dir, 'not.toml')} is not TOML \\(line 1, column 1: `),
    );
    expect(() =>
      readRuncOptions({ typeUrl: 'runtimeoptions.v1.Options', value: new Uint8Array([0x12, 9]) }, 't'),
    ).toThrow(InvalidArgumentError);
  });
});
