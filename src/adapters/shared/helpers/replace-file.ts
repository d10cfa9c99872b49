import { closeSync, renameSync, unlinkSync, writeSync } from 'node:fs';

/** Writes all of `bytes` to `fd`: one write may take only part of them. */
export function writeWhole(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
}

/**
 * Fills the new file `fd` (opened at `temp`, created 0600 and never through a link by the
 * caller), closes it and renames it over `target`: a crash mid-write leaves the old file
 * whole, and a rename replaces a link instead of writing through it. On a failure the temp
 * file goes. Not synced to the disk: the shim's records outlive its processes, not the
 * machine (fs-task-journal.ts).
 */
export function fillAndRename(fd: number, temp: string, target: string, bytes: Uint8Array): void {
  try {
    writeWhole(fd, bytes);
  } catch (err) {
    closeSync(fd);
    try {
      unlinkSync(temp);
    } catch {
      // Gone already.
    }
    throw err;
  }
  closeSync(fd);
  renameSync(temp, target);
}
