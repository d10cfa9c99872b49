import { closeSync, constants, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { readRegularFile } from '../../shared/helpers/no-follow-file';

/** A pid and a newline; anything larger holds no pid. */
const MAX_PID_FILE = 64;

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

/**
 * The pid a pid file names (ours, or one runc wrote into a task dir); undefined when there is
 * none, or it holds no pid: a link, a FIFO or a device there is none either, never followed,
 * waited on or read whole (no-follow-file.ts).
 */
export function readPidFile(path: string): number | undefined {
  try {
    const text = readRegularFile(path, { limit: MAX_PID_FILE });
    if (text === undefined) return undefined;
    const pid = Number(text.trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the pid file if it still names `pid` (a successor may have written its own). */
export function removePidFile(path: string, pid = process.pid): void {
  if (readPidFile(path) === pid) rmSync(path, { force: true });
}
