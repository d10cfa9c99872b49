import { InvalidArgumentError } from '../../../../../../src/domain/shared/errors';
import { readRuncOptions } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/runc-options';
import { containerd } from '../../../../../../src/adapters/shim/wire/proto/generated/containerd/runc';

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
