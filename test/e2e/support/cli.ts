import { spawn } from 'node:child_process';
import { SKIFF_BIN } from './shim-process';

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built `skiff` with `args`, optionally feeding `input` on stdin. */
export function skiff(
  args: string[],
  options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SKIFF_BIN, ...args], {
      env: { ...process.env, ...options.env },
      cwd: options.cwd,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.end(options.input ?? '');
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
