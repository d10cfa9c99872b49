import { UnimplementedError } from '../../../../../domain/shared/errors';
import {
  CreateSpec,
  ProcessRuntime,
  TaskHandle,
  TaskWatch,
} from '../../../../../application/shim/ports/process-runtime.port';
import { readBundleSpec } from '../bundle';
import { assertDirectory, resolveExecutable } from './executable';
import { NativeProcessHandle } from './native-process-handle';
import { NativeTaskHandle } from './native-task-handle';
import { StartGate } from './start-gate';

/**
 * Runs a bundle's `process` (args, env, cwd) as plain host processes: no isolation,
 * no root needed, the rootfs is not entered (docs/runtimes.md). The embedded default.
 */
export class NativeRuntime implements ProcessRuntime {
  readonly name = 'native';

  async create(spec: CreateSpec, watch: TaskWatch): Promise<TaskHandle> {
    const subject = `task ${JSON.stringify(spec.id)}`;
    const bundleSpec = readBundleSpec(spec.id, spec.bundle);
    const oci = bundleSpec.process;
    if (bundleSpec.userNamespace) {
      // Host processes with the shim's own ids: a mapping would be silently not there (docs/runtimes.md, "User namespaces").
      throw new UnimplementedError(
        `${subject}: the native runtime runs host processes and makes no user namespace; drop linux.uidMappings, gidMappings and the user namespace, or use --runtime runc`,
        'CREATE.USER_NAMESPACE',
      );
    }
    if (spec.checkpoint !== '') {
      throw new UnimplementedError(`${subject}: restoring a checkpoint needs --runtime runc`, 'CREATE.CHECKPOINT');
    }
    if (spec.rootfs.length > 0) {
      throw new UnimplementedError(
        `${subject}: the native runtime does not mount rootfs; send no rootfs mounts or use --runtime runc`,
        'CREATE.ROOTFS',
      );
    }
    assertDirectory(oci.cwd, subject);
    const file = resolveExecutable(oci.args[0], oci.env, oci.cwd, subject);
    // Credentials from the spec apply only when the shim may change them (root).
    const runAs = process.getuid?.() === 0 ? oci.user : undefined;
    const plan = { file, argv: oci.args, env: oci.env, cwd: oci.cwd, user: runAs, stdio: spec.stdio, subject };
    const init = new NativeProcessHandle(plan, watch.onExit, new StartGate());
    return new NativeTaskHandle(init, runAs, watch.execs);
  }
}
