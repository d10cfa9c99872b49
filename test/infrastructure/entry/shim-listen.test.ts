import ShimServe from '../../../src/adapters/commands/shim/serve';
import { parseServeArgs } from '../../../src/infrastructure/entry/shim-listen';
import { SERVE_FLAGS } from '../../../src/infrastructure/shim/serve-flags';
import { ADDRESS_VARIABLE, defaultAddress, defaultStateDir } from '../../../src/infrastructure/shim/shim-config';

describe('the fast path of `skiff shim serve`', () => {
  const saved = process.env[ADDRESS_VARIABLE];
  afterEach(() => {
    if (saved === undefined) delete process.env[ADDRESS_VARIABLE];
    else process.env[ADDRESS_VARIABLE] = saved;
  });

  it("reads the command's flags, with its defaults and $SKIFF_ADDRESS", () => {
    delete process.env[ADDRESS_VARIABLE];
    expect(parseServeArgs([])).toEqual({
      address: defaultAddress(),
      runtime: 'native',
      stateDir: defaultStateDir(),
      runDir: undefined,
      lifeline: false,
    });
    process.env[ADDRESS_VARIABLE] = '/env.sock';
    expect(parseServeArgs(['--runtime=runc', '--state-dir', '/st', '--run-dir', '/r', '--lifeline'])).toEqual({
      address: '/env.sock',
      runtime: 'runc',
      stateDir: '/st',
      runDir: '/r',
      lifeline: true,
    });
    expect(parseServeArgs(['--address', '/a.sock'])?.address).toBe('/a.sock');
  });

  it.each([[['--help']], [['--runtime', 'crun']], [['--address', 'a', '--address', 'b']], [['--bogus']], [['x']]])(
    'hands %j to oclif',
    (argv) => {
      expect(parseServeArgs(argv)).toBeUndefined();
    },
  );

  it("reads exactly the flags the command has: its table's", () => {
    expect(Object.keys(ShimServe.flags).sort()).toEqual(Object.keys(SERVE_FLAGS).sort());
  });
});
