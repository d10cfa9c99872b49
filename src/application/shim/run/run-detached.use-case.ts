import { inject, injectable } from 'inversify';
import { BUNDLE_WRITER, type BundleWriter } from '../ports/bundle-writer.port';
import { SHIM_LAUNCHER, type ShimLauncher } from '../ports/shim-launcher.port';
import { TASK_CLIENT_FACTORY, type TaskClientFactory } from '../ports/task-client.port';
import { prepareRun, RunInput } from './run-setup';

/**
 * `skiff run -d`: the task created (without stdio) and started in the run's shim,
 * which then serves on its own; `skiff task <verb> --id <id>` finds it by the id.
 * If the task cannot be started, nothing is left behind.
 */
@injectable()
export class RunDetached {
  constructor(
    @inject(SHIM_LAUNCHER) private readonly launcher: ShimLauncher,
    @inject(BUNDLE_WRITER) private readonly writer: BundleWriter,
    @inject(TASK_CLIENT_FACTORY) private readonly clients: TaskClientFactory,
  ) {}

  async execute(input: RunInput): Promise<{ pid: number }> {
    const { shim, bundle } = await prepareRun(this.launcher, this.writer, input, false);
    const client = this.clients.connect(shim.address);
    const ref = { id: input.id, execId: '' };
    const noStdio = { stdin: '', stdout: '', stderr: '', terminal: false };
    try {
      await client.create({ ...ref, bundle, rootfs: [], checkpoint: '', parentCheckpoint: '', ...noStdio });
      const started = await client.start(ref);
      shim.detach();
      return started;
    } catch (err) {
      await client.shutdown({ id: input.id, now: true }).catch(() => undefined);
      await shim.stop();
      throw err;
    } finally {
      client.close();
    }
  }
}
