import { InvalidArgumentError } from '../../../src/domain/shared/errors';
import { envValue, parseOciProcess, parseOciSpec } from '../../../src/domain/shim/oci-spec';

describe('OCI spec parsing', () => {
  it('reads args, env, cwd and terminal', () => {
    const p = parseOciProcess({ args: ['sh', '-c', 'true'], env: ['A=1'], cwd: '/tmp', terminal: true }, 'x');
    expect(p).toEqual({ args: ['sh', '-c', 'true'], env: ['A=1'], cwd: '/tmp', terminal: true, user: undefined });
  });

  it('defaults cwd to / and env to empty', () => {
    expect(parseOciProcess({ args: ['true'] }, 'x')).toMatchObject({ cwd: '/', env: [] });
  });

  it.each([
    ['no args', { env: [] }],
    ['empty args', { args: [] }],
    ['an empty program', { args: [''] }],
    ['args of the wrong type', { args: 'true' }],
    ['a relative cwd', { args: ['true'], cwd: 'tmp' }],
    ['a non-object', 'true'],
    ['env of the wrong type', { args: ['true'], env: [1] }],
    ['a fractional uid', { args: ['true'], user: { uid: 1.5, gid: 0 } }],
  ])('refuses %s', (_why, value) => {
    expect(() => parseOciProcess(value, 'spec of task "t"')).toThrow(InvalidArgumentError);
  });

  it('refuses a spec without a process, naming where', () => {
    expect(() => parseOciSpec({ ociVersion: '1.0.2' }, '/b/config.json')).toThrow(
      '/b/config.json: the spec has no process',
    );
  });

  it('reads the root path and hostname', () => {
    expect(parseOciSpec({ process: { args: ['true'] }, root: { path: 'rfs' }, hostname: 'h' }, 'x')).toMatchObject({
      rootPath: 'rfs',
      hostname: 'h',
    });
  });

  it('finds the last value of an env variable', () => {
    expect(envValue(['PATH=/a', 'X=1', 'PATH=/b'], 'PATH')).toBe('/b');
    expect(envValue(['X=1'], 'PATH')).toBeUndefined();
  });
});
