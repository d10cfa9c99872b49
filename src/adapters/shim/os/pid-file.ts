import { closeSync, constants, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';

/**
 * The serving process's pid file, `<group socket without .sock>.pid` (docs/keeper-protocol.md,
 * "Who runs what"): how `skiff containerd restart` finds it. Written whole or not at all (a new
 * 0600 file, never an old one or through a link, renamed over the old), removed when it leaves.
 */
export function pidFileOf(groupSocket: string): string {
  return `${groupSocket.replace(/\.sock$/, '')}.pid`;
}

export function writePidFile(path: string, pid = process.pid): void {
  const temp = `${path}.tmp-${pid}`;
  rmSync(temp, { force: true });
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, `${pid}\n`);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}

/** The pid a pid file names; undefined when there is none, or it holds no pid. */
export function readPidFile(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the pid file if it still names `pid` (a successor may have written its own). */
export function removePidFile(path: string, pid = process.pid): void {
  if (readPidFile(path) === pid) rmSync(path, { force: true });
}
