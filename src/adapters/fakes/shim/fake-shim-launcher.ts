import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LaunchedShim, RunShimOptions, ShimLauncher } from '../../../application/shim/ports/shim-launcher.port';

/** Records launches; each run gets a real private directory (a derived bundle is written there). */
export class FakeShimLauncher implements ShimLauncher {
  launched: RunShimOptions[] = [];
  dirs: string[] = [];
  stopped = 0;
  detached = 0;

  async launch(options: RunShimOptions): Promise<LaunchedShim> {
    this.launched.push(options);
    const dir = mkdtempSync(join(tmpdir(), 'skiff-fake-run-'));
    this.dirs.push(dir);
    return {
      address: '/fake/shim.sock',
      dir,
      stop: async () => {
        this.stopped++;
        rmSync(dir, { recursive: true, force: true });
      },
      detach: () => void this.detached++,
    };
  }
}
