import { InvalidArgumentError } from '../../../../../../src/domain/shared/errors';
import {
  checkpointArgs,
  CHECKPOINT_OPTIONS_TYPE_URL,
  DEFAULT_CHECKPOINT,
  readCheckpointOptions,
} from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/checkpoint-options';
import { containerd } from '../../../../../../src/adapters/shim/wire/proto/generated/containerd/runc';

const options = (fields: ConstructorParameters<typeof containerd.runc.v1.CheckpointOptions>[0]) => ({
  typeUrl: CHECKPOINT_OPTIONS_TYPE_URL,
  value: new containerd.runc.v1.CheckpointOptions(fields).serialize(),
});

describe("Checkpoint's options as the runc shim takes them (containerd.runc.v1.CheckpointOptions)", () => {
  it('takes none (CRI sends none to a runtime other than runc) as a dump that leaves the container running', () => {
    expect(readCheckpointOptions(undefined, 'task "t"')).toEqual(DEFAULT_CHECKPOINT);
    expect(readCheckpointOptions(options({}), 'task "t"')).toEqual(DEFAULT_CHECKPOINT);
    expect(checkpointArgs(DEFAULT_CHECKPOINT, '/img', '/work')).toEqual([
      'checkpoint',
      '--image-path',
      '/img',
      '--work-path',
      '/work',
      '--leave-running',
    ]);
  });

  it("maps each option to runc's flag, as go-runc's CheckpointOpts does for the runc shim", () => {
    const request = readCheckpointOptions(
      options({
        exit: true,
        open_tcp: true,
        external_unix_sockets: true,
        terminal: true,
        file_locks: true,
        empty_namespaces: ['network'],
        cgroups_mode: 'full',
        work_path: '/var/lib/criu-work',
        image_path: '/ignored/by/the/shim',
      }),
      'task "t"',
    );
    expect(request.workPath).toBe('/var/lib/criu-work');
    expect(checkpointArgs(request, '/img', request.workPath)).toEqual([
      'checkpoint',
      '--image-path',
      '/img',
      '--work-path',
      '/var/lib/criu-work',
      '--tcp-established',
      '--ext-unix-sk',
      '--shell-job',
      '--manage-cgroups-mode',
      'full',
      '--file-locks',
      '--empty-ns',
      'network',
    ]);
  });

  it('refuses options of another type, naming the one it takes', () => {
    const err = (() => {
      try {
        readCheckpointOptions({ typeUrl: 'containerd.runc.v1.Options', value: new Uint8Array([8, 1]) }, 'task "t"');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as Error).message).toBe(
      'checkpoint of task "t": options of type "containerd.runc.v1.Options" are not understood; send containerd.runc.v1.CheckpointOptions or none',
    );
  });

  it('refuses what does not decode, a cgroups_mode runc does not know and a relative work_path, naming each', () => {
    const bad = { typeUrl: CHECKPOINT_OPTIONS_TYPE_URL, value: new Uint8Array([0x0a, 0x05, 0x01]) };
    expect(() => readCheckpointOptions(bad, 'task "t"')).toThrow(/checkpoint of task "t": options do not decode/);
    expect(() => readCheckpointOptions(options({ cgroups_mode: 'loose' }), 'task "t"')).toThrow(
      'checkpoint of task "t": cgroups_mode "loose" is not one of soft, full, strict, ignore',
    );
    expect(() => readCheckpointOptions(options({ work_path: 'work' }), 'task "t"')).toThrow(
      'checkpoint of task "t": work_path "work" is not an absolute path',
    );
  });
});
