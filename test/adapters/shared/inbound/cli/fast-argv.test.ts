import { parseFastArgv } from '../../../../../src/adapters/shared/inbound/cli/fast-argv';
import { FlagSpecs } from '../../../../../src/adapters/shared/inbound/cli/flag-specs';

const SPECS = {
  address: { type: 'string', description: 'a' },
  runtime: { type: 'string', description: 'r', options: ['native', 'runc'] },
  lifeline: { type: 'boolean', description: 'l' },
} as const satisfies FlagSpecs;

describe('a fast path reads argv with a command flag table', () => {
  it('in the plain forms: --name value, --name=value, a boolean alone', () => {
    expect(parseFastArgv(SPECS, [])).toEqual({});
    expect(parseFastArgv(SPECS, ['--address', '/s.sock', '--runtime=runc', '--lifeline'])).toEqual({
      address: '/s.sock',
      runtime: 'runc',
      lifeline: true,
    });
    expect(parseFastArgv(SPECS, ['--address=a=b'])).toEqual({ address: 'a=b' });
  });

  it.each([
    [['--help']],
    [['-h']],
    [['--unknown', 'x']],
    [['serve']],
    [['--address']],
    [['--address', '']],
    [['--address', '-x']],
    [['--address', '--runtime', 'runc']],
    [['--address', 'a', '--address', 'b']],
    [['--runtime', 'crun']],
    [['--lifeline=true']],
    [['--lifeline', '--lifeline']],
    [['--', '--address', 'a']],
    [['--constructor', 'x']],
  ])('and leaves %j to oclif', (argv) => {
    expect(parseFastArgv(SPECS, argv)).toBeUndefined();
  });
});
