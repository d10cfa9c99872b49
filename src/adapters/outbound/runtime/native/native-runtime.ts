import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { UnimplementedError } from '../../../../domain/errors';
import { CreateSpec, ExitListener, ProcessRuntime, RuntimeTask } from '../../../../application/ports/process-runtime.port';
import { readBundleSpec } from '../bundle';
import { assertDirectory, resolveExecutable } from './executable';
import { NativeProcess } from './native-process';
import { NativeTask } from './native-task';
import { StartGate } from './start-gate';

/**
 * Runs a bundle's `process` (args, env, cwd) as plain host processes: no isolation,
 * no root needed, the rootfs is not entered (CONTRACT.md). The embedded default.
 */
export class NativeRuntime implements ProcessRuntime {
  readonly name = 'native';

  constructor(private readonly stateDir: string) {}

  async create(spec: CreateSpec, onExit: ExitListener): Promise<RuntimeTask> {
    const subject = `task ${JSON.stringify(spec.id)}`;
    const oci = readBundleSpec(spec.id, spec.bundle).process;
    if (spec.checkpoint !== '') {
      throw new UnimplementedError(`${subject}: restoring a checkpoint needs --runtime runc`, 'CREATE.CHECKPOINT');
    }
    if (spec.rootfs.length > 0) {
      throw new UnimplementedError(`${subject}: the native runtime does not mount rootfs; send no rootfs mounts or use --runtime runc`, 'CREATE.ROOTFS');
    }
    assertDirectory(oci.cwd, subject);
    const resolved = resolveExecutable(oci.args[0], oci.env, oci.cwd, subject);
    // Keep argv[0] as written when the shell will find it through the process's own PATH.
    const program = oci.env.some((e) => e.startsWith('PATH=')) ? oci.args[0] : resolved;
    // Credentials from the spec apply only when the shim may change them (root).
    const runAs = process.getuid?.() === 0 ? oci.user : undefined;

    const taskDir = join(this.stateDir, spec.id);
    mkdirSync(taskDir, { recursive: true, mode: 0o700 });
    try {
      const gate = new StartGate(taskDir);
      const argv = ['sh', ...gate.wrap([program, ...oci.args.slice(1)])];
      const plan = { file: '/bin/sh', argv, env: oci.env, cwd: oci.cwd, user: runAs, stdio: spec.stdio, subject };
      return new NativeTask(new NativeProcess(plan, onExit, { gate }), taskDir, runAs);
    } catch (err) {
      rmSync(taskDir, { recursive: true, force: true });
      throw err;
    }
  }

  async shutdown(): Promise<void> {}
}
