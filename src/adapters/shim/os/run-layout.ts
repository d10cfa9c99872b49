import { rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The files of one `skiff run` in its private directory `<runs>/<id>/` (0700): the
 * launcher makes them, the console adds the FIFOs, `skiff task` finds the socket by
 * the id, and the run's shim removes them all when it exits.
 */
export const RUN_FILES = {
  socket: 'shim.sock',
  log: 'shim.log',
  state: 'state',
  bundle: 'bundle',
  stdin: 'stdin',
  stdout: 'stdout',
  stderr: 'stderr',
} as const;

export function runDir(runs: string, id: string): string {
  return join(runs, id);
}

export function runSocket(dir: string): string {
  return join(dir, RUN_FILES.socket);
}

/**
 * Removes a run's files by name, then the directory if that left it empty: a
 * directory named by mistake loses nothing but files of these names.
 */
export function removeRunDir(dir: string): void {
  for (const name of Object.values(RUN_FILES)) rmSync(join(dir, name), { recursive: true, force: true });
  try {
    rmdirSync(dir);
  } catch {
    // Not empty (something that is not ours) or already gone: leave it.
  }
}
