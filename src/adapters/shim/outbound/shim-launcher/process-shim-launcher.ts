import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AlreadyExistsError, InternalError, InvalidArgumentError } from '../../../../domain/shared/errors';
import { LaunchedShim, RunShimOptions, ShimLauncher } from '../../../../application/shim/ports/shim-launcher.port';
import { fsReason } from '../../../shared/helpers/make-dirs';
import { ensurePrivateDir } from '../../../shared/helpers/private-dir';
import { packageRoot } from '../../../shared/helpers/package-info';
import { RUN_FILES, runDir, runSocket } from '../../os/run-layout';
import { socketAccepts } from '../../os/socket-accepts';
import { MAX_SOCKET_PATH } from '../../os/unix-address';

const READY_TIMEOUT_MS = 10_000;
const EXIT_GRACE_MS = 3_000;

/**
 * Starts `skiff shim serve` for one run, detached (its own session), in the run's
 * directory `<runs>/<id>/`, where `skiff task --id <id>` and `skiff task ls` find it.
 * With `boundToCaller` the shim's stdin is a pipe from this process, its lifeline:
 * when this process is gone, however it died, the shim ends the task and itself.
 */
export class ProcessShimLauncher implements ShimLauncher {
  constructor(private readonly runs: string) {}

  async launch(options: RunShimOptions): Promise<LaunchedShim> {
    const dir = await this.claim(options.id);
    const address = runSocket(dir);
    const logPath = join(dir, RUN_FILES.log);
    const log = openSync(logPath, 'a', 0o600);
    const child = spawn(
      process.execPath,
      [
        join(packageRoot(), 'bin', 'run.js'),
        ...['shim', 'serve', '--address', address, '--runtime', options.runtime],
        ...['--state-dir', join(dir, RUN_FILES.state), '--run-dir', dir],
        ...(options.boundToCaller ? ['--lifeline'] : []),
      ],
      // Its own session: a Ctrl-C in the terminal reaches `skiff run`, which forwards it to the task.
      { detached: true, stdio: [options.boundToCaller ? 'pipe' : 'ignore', 'ignore', log] },
    );
    closeSync(log);
    const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await ready(child, address, () => readFileSync(logPath, 'utf8'), dir);
    return {
      address,
      dir,
      async stop() {
        const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_GRACE_MS);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await exit;
        clearTimeout(timer);
        child.stdin?.destroy();
        rmSync(dir, { recursive: true, force: true });
      },
      detach() {
        child.unref();
      },
    };
  }

  /** Makes the run's directory; a live run of that id is refused, a dead one's leftovers replaced. */
  private async claim(id: string): Promise<string> {
    const dir = runDir(this.runs, id);
    if (Buffer.byteLength(runSocket(dir)) > MAX_SOCKET_PATH) {
      throw new InvalidArgumentError(
        `--id ${id} makes the run's socket path ${runSocket(dir)} longer than ${MAX_SOCKET_PATH} bytes; choose a shorter id`,
        'RUN.ID_TOO_LONG',
      );
    }
    ensurePrivateDir(dirname(this.runs));
    ensurePrivateDir(this.runs);
    try {
      if (await socketAccepts(runSocket(dir))) {
        throw new AlreadyExistsError(
          `a run with id ${id} is live (see \`skiff task ls\`); choose another --id, or end it with \`skiff task kill --id ${id}\``,
          'RUN.EXISTS',
        );
      }
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { mode: 0o700 });
    } catch (err) {
      if (err instanceof AlreadyExistsError) throw err;
      throw new InternalError(`cannot make the run's directory ${dir}: ${fsReason(err)}`, 'RUN.DIRECTORY');
    }
    return dir;
  }
}

/** Resolves once the shim accepts connections; if it exits or never does, its last logged line is the error. */
async function ready(child: ChildProcess, address: string, log: () => string, dir: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await socketAccepts(address))) {
    const exited = child.exitCode !== null || child.signalCode !== null;
    if (exited || Date.now() > deadline) {
      const reason = log().trim().split('\n').pop() ?? '';
      if (!exited) child.kill('SIGKILL');
      child.stdin?.destroy();
      rmSync(dir, { recursive: true, force: true });
      throw new InternalError(`the shim did not start${reason ? `: ${reason}` : ''}`, 'RUN.SHIM_START');
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
