import { inject, injectable } from 'inversify';
import { BUNDLE_WRITER, type BundleWriter } from '../ports/bundle-writer.port';
import { CONSOLE, type Console } from '../ports/console.port';
import { SHIM_LAUNCHER, type ShimLauncher } from '../ports/shim-launcher.port';
import { TASK_CLIENT_FACTORY, type TaskClientFactory } from '../ports/task-client.port';
import { prepareRun, RunInput } from './run-setup';

export interface RunBundleInput extends RunInput {
  readonly terminal: boolean;
  /** The shim ends the task if this process dies before it could (`--rm`). */
  readonly rm: boolean;
}

/**
 * `skiff run`: the run's shim in the background, the task created with the user's
 * terminal as its stdio, signals forwarded, then Wait, Delete and Shutdown.
 * Resolves to the task's exit status, which becomes the command's own.
 */
@injectable()
export class RunBundle {
  constructor(
    @inject(SHIM_LAUNCHER) private readonly launcher: ShimLauncher,
    @inject(BUNDLE_WRITER) private readonly writer: BundleWriter,
    @inject(TASK_CLIENT_FACTORY) private readonly clients: TaskClientFactory,
    @inject(CONSOLE) private readonly console: Console,
  ) {}

  async execute(input: RunBundleInput): Promise<number> {
    const { shim, bundle } = await prepareRun(this.launcher, this.writer, input, input.rm);
    const client = this.clients.connect(shim.address);
    const ref = { id: input.id, execId: '' };
    const ignore = () => undefined;
    try {
      const io = await this.console.attach(input.terminal, shim.dir);
      try {
        await client.create({ ...ref, bundle, rootfs: [], checkpoint: '', parentCheckpoint: '', ...io.stdio });
        io.connect({
          onStdinEnd: () => void client.closeIO({ ...ref, stdin: true }).catch(ignore),
          onResize: (width, height) => void client.resizePty({ ...ref, width, height }).catch(ignore),
          onSignal: (signal) => void client.kill({ ...ref, signal, all: false }).catch(ignore),
        });
        // Wait goes out before Start so that even an instant exit is seen.
        const exited = client.wait(ref);
        exited.catch(ignore);
        await client.start(ref);
        const { exitStatus } = await exited;
        await io.outputDone();
        await client.delete(ref);
        return exitStatus;
      } finally {
        io.close();
      }
    } finally {
      await client.shutdown({ id: input.id, now: true }).catch(ignore);
      client.close();
      await shim.stop();
    }
  }
}
