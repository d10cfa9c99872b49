import { InvalidArgumentError } from '../../../src/domain/shared/errors';
import { checkOverrides, hasOverrides, mergeEnv, withOverrides } from '../../../src/domain/shim/process-overrides';

describe('process overrides (skiff run --env/--cwd)', () => {
  it('an --env entry replaces the bundle entry of the same name, others are appended in order', () => {
    expect(mergeEnv(['PATH=/bin', 'TERM=xterm', 'A=old'], ['A=new', 'B=x=y', 'C='])).toEqual([
      'PATH=/bin',
      'TERM=xterm',
      'A=new',
      'B=x=y',
      'C=',
    ]);
  });

  it('refuses an --env without NAME= and a relative --cwd, naming the flag', () => {
    expect(() => checkOverrides({ env: ['NAME'] })).toThrow(
      new InvalidArgumentError('--env "NAME" is not NAME=value', 'RUN.ENV'),
    );
    expect(() => checkOverrides({ env: ['=x'] })).toThrow(/--env "=x"/);
    expect(() => checkOverrides({ env: [], cwd: 'tmp' })).toThrow(/--cwd "tmp" must be an absolute path/);
    expect(() => checkOverrides({ env: ['A=1'], cwd: '/tmp' })).not.toThrow();
  });

  it('knows when there is nothing to override', () => {
    expect(hasOverrides({ env: [] })).toBe(false);
    expect(hasOverrides({ env: [], cwd: '/' })).toBe(true);
  });

  it('keeps every other field, sets env and cwd, and points a relative rootfs at the source bundle', () => {
    const config = {
      ociVersion: '1.0.2',
      process: { args: ['sh'], env: ['A=1'], cwd: '/', terminal: false },
      root: { path: 'rootfs', readonly: true },
      hostname: 'h',
    };
    expect(withOverrides(config, { env: ['B=2'], cwd: '/srv' }, '/bundles/b/', 'config.json')).toEqual({
      ociVersion: '1.0.2',
      process: { args: ['sh'], env: ['A=1', 'B=2'], cwd: '/srv', terminal: false },
      root: { path: '/bundles/b/rootfs', readonly: true },
      hostname: 'h',
    });
    const absolute = withOverrides({ process: { args: ['sh'] }, root: { path: '/images/r' } }, { env: [] }, '/b', 'c');
    expect(absolute).toMatchObject({ process: { env: [] }, root: { path: '/images/r' } });
    expect(() => withOverrides({ root: {} }, { env: [] }, '/b', '/b/config.json')).toThrow(
      /\/b\/config.json: the spec has no process/,
    );
  });
});
