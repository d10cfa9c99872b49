import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Temporary OCI bundles for tests; `cleanup()` removes them all. */
export class BundleFactory {
  readonly root = mkdtempSync(join(tmpdir(), 'skiff-bundles-'));
  private count = 0;

  /** A bundle whose config.json runs `args` (with a usual PATH). */
  make(args: string[], extra: Record<string, unknown> = {}): string {
    return this.makeWithConfig({
      ociVersion: '1.0.2',
      process: { args, env: ['PATH=/usr/local/bin:/usr/bin:/bin', 'TERM=xterm'], cwd: '/' },
      root: { path: 'rootfs' },
      ...extra,
    });
  }

  /** A bundle holding exactly `config` as config.json (a string is written as is). */
  makeWithConfig(config: unknown): string {
    const dir = join(this.root, `b${this.count++}`);
    mkdirSync(join(dir, 'rootfs'), { recursive: true });
    writeFileSync(join(dir, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config));
    return dir;
  }

  cleanup(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}
