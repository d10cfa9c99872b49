import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..', '..');
const RUN = join(ROOT, 'bin', 'run.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A home of its own for the built CLI: XDG data, config and HOME in a temp directory. */
export class CliHome {
  /** `program`: the skiff to run (default this checkout's bin/run.js; an installed one's bin/run.js). */
  constructor(private readonly program: string = RUN) {}

  readonly dir = mkdtempSync(join(tmpdir(), 'skiff-e2e-'));
  readonly env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: join(this.dir, 'home'),
    XDG_DATA_HOME: join(this.dir, 'data'),
    XDG_CONFIG_HOME: join(this.dir, 'config'),
    // No browser on the test machine, whatever the environment says.
    BROWSER: '/bin/false',
  };

  get authDir(): string {
    return join(this.dir, 'data', 'skiff', 'auth');
  }

  cacheFile(safeDomain: string): string {
    return join(this.authDir, `${safeDomain}.json`);
  }

  /** Runs `skiff <args>` to the end. */
  run(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
    const child = this.spawn(args, options.env);
    child.stdin?.end(options.input ?? '');
    return finished(child);
  }

  spawn(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
    return spawn(process.execPath, [this.program, ...args], {
      env: { ...this.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export function finished(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** Resolves with the first match of `pattern` in what `child` writes on stderr. */
export function waitForStderr(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (d: Buffer) => {
      seen += d.toString();
      const match = pattern.exec(seen);
      if (match) {
        child.stderr?.off('data', onData);
        resolve(match);
      }
    };
    child.stderr?.on('data', onData);
    child.once('close', () => reject(new Error(`exited before ${pattern}: ${seen}`)));
  });
}
