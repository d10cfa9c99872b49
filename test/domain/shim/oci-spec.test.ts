import { InvalidArgumentError } from '../../../src/domain/shared/errors';
import { envValue, idMappingProblem, parseOciProcess, parseOciSpec } from '../../../src/domain/shim/oci-spec';

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

describe('user namespaces in a spec', () => {
  const spec = (linux: Record<string, unknown>) => parseOciSpec({ process: { args: ['true'] }, linux }, 'x');
  const map = (containerID: number, hostID: number, size: number) => ({ containerID, hostID, size });

  it('tells a new user namespace or id mappings from neither', () => {
    expect(spec({}).userNamespace).toBe(false);
    expect(spec({ namespaces: [{ type: 'pid' }, { type: 'mount' }] }).userNamespace).toBe(false);
    expect(spec({ namespaces: [{ type: 'user' }] }).userNamespace).toBe(true);
    expect(spec({ uidMappings: [map(0, 100000, 65536)] }).userNamespace).toBe(true);
    expect(spec({ gidMappings: [map(0, 100000, 65536)], uidMappings: [] }).userNamespace).toBe(true);
  });

  it('takes the mappings the kernel takes', () => {
    expect(idMappingProblem(undefined)).toBeUndefined();
    expect(idMappingProblem({ uidMappings: [map(0, 100000, 65536)], gidMappings: [map(0, 100000, 65536)] })).toBe(
      undefined,
    );
    // Ranges side by side, and the last id there is.
    expect(idMappingProblem({ uidMappings: [map(0, 1000, 1), map(1, 100000, 65535), map(70000, 4294967295, 1)] })).toBe(
      undefined,
    );
  });

  it('names what the kernel would refuse: an empty range, one past 2^32 - 1, two that overlap, more than 340', () => {
    expect(idMappingProblem({ uidMappings: [map(0, 100000, 0)] })).toBe(
      'linux.uidMappings[0] (containerID 0, hostID 100000, size 0) maps no id',
    );
    expect(idMappingProblem({ gidMappings: [map(0, 4294967000, 65536)] })).toBe(
      'linux.gidMappings[0] (containerID 0, hostID 4294967000, size 65536) goes past id 4294967295',
    );
    expect(idMappingProblem({ uidMappings: [map(0, 100000, 10), map(5, 200000, 10)] })).toBe(
      'linux.uidMappings[1] (containerID 5, hostID 200000, size 10) overlaps linux.uidMappings[0]',
    );
    expect(idMappingProblem({ uidMappings: [map(0, 100000, 10), map(10, 100009, 10)] })).toBe(
      'linux.uidMappings[1] (containerID 10, hostID 100009, size 10) overlaps linux.uidMappings[0]',
    );
    expect(idMappingProblem({ uidMappings: Array.from({ length: 341 }, (_, i) => map(i, 100000 + i, 1)) })).toBe(
      'linux.uidMappings has 341 ranges; the kernel takes at most 340',
    );
    expect(idMappingProblem({ uidMappings: [{ containerID: 0, hostID: -1, size: 1 }] })).toBe(
      'linux.uidMappings[0] must hold containerID, hostID and size as whole numbers',
    );
    expect(idMappingProblem({ uidMappings: 'no' })).toBe('linux.uidMappings must be a list');
  });
});
