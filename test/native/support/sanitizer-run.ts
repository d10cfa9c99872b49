import { spawnSync, SpawnSyncOptions, SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs of sanitized programs. Reports go to files in one directory (log_path), so that a report
 * of a forked child whose stderr went elsewhere (the bundle's log FIFO) is seen too.
 */
export class SanitizerRuns {
  readonly dir = mkdtempSync(join(tmpdir(), 'skiff-sanitizer-'));

  /** The environment: halt at the first report, leaks included, reports in this.dir. */
  env(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
    return {
      ...base,
      ASAN_OPTIONS: `halt_on_error=1:detect_leaks=1:abort_on_error=0:exitcode=86:log_path=${join(this.dir, 'asan')}`,
      UBSAN_OPTIONS: `halt_on_error=1:print_stacktrace=1:exitcode=87:log_path=${join(this.dir, 'ubsan')}`,
    };
  }

  run(program: string, args: readonly string[], options: SpawnSyncOptions = {}): SpawnSyncReturns<Buffer> {
    return spawnSync(program, args, {
      timeout: 20_000,
      ...options,
      encoding: 'buffer',
      env: this.env({ ...process.env, ...options.env }),
    });
  }

  /** Every report written so far, whole (empty when the runs were clean). */
  reports(): string {
    return readdirSync(this.dir)
      .map((file) => `--- ${file}\n${readFileSync(join(this.dir, file), 'utf8')}`)
      .join('\n');
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
