import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, openSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InternalError } from '../../../../domain/shared/errors';
import { LaunchedShim, ShimLauncher } from '../../../../application/shim/ports/shim-launcher.port';
import { packageRoot } from '../../../shared/helpers/package-info';
import { socketAccepts } from '../../helpers/socket-accepts';

const READY_TIMEOUT_MS = 10_000;
const EXIT_GRACE_MS = 3_000;

/** Starts `skiff shim serve` as a detached process on a socket in a private temporary directory. */
export class ProcessShimLauncher implements ShimLauncher {
  async launch(runtime: string): Promise<LaunchedShim> {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-shim-'));
    const address = join(dir, 'shim.sock');
    const logPath = join(dir, 'shim.log');
    const log = openSync(logPath, 'a', 0o600);
    const child = spawn(
      process.execPath,
      [
        join(packageRoot(), 'bin', 'run.js'),
        'shim',
        'serve',
        '--address',
        address,
        '--runtime',
        runtime,
        '--state-dir',
        join(dir, 'state'),
      ],
      {
        // Its own session: a Ctrl-C in the terminal reaches `skiff run`, which forwards it to the task.
        detached: true,
        stdio: ['ignore', 'ignore', log],
      },
    );
    closeSync(log);
    let exited = false;
    const exit = new Promise<void>((resolve) =>
      child.once('exit', () => {
        exited = true;
        resolve();
      }),
    );
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await socketAccepts(address))) {
      if (exited || Date.now() > deadline) {
        const reason = readFileSync(logPath, 'utf8').trim().split('\n').pop() ?? '';
        if (!exited) child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
        throw new InternalError(`the shim did not start${reason ? `: ${reason}` : ''}`, 'RUN.SHIM_START');
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return {
      address,
      async stop() {
        const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_GRACE_MS);
        if (!exited) child.kill('SIGTERM');
        await exit;
        clearTimeout(timer);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
}
