import { execFile } from 'node:child_process';
import { Reaper } from './reaper';

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a program with an argv array (no shell), registered with the reaper; never rejects for a non-zero exit. */
export function runCommand(file: string, args: readonly string[], reaper: Reaper): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = execFile(file, [...args], { encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 127;
      resolve({ code, stdout, stderr: err !== null && stderr === '' ? err.message : stderr });
    });
    reaper.track(child);
  });
}
