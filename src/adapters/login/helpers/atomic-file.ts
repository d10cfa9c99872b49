import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  lstatSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { symlinkRefused, UnsafeFileError } from '../../shared/helpers/no-follow-file';
import { makeDirs } from '../../shared/helpers/make-dirs';

/**
 * The rename would replace a link rather than write through it, but a link there
 * was not made by skiff: it is refused, so the user learns of it. A target with
 * other hard links is fine: the rename gives this name a new inode, the others
 * keep theirs untouched.
 */
function refuseUnsafeTarget(path: string): void {
  let stat;
  try {
    stat = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (stat.isSymbolicLink()) throw symlinkRefused();
  if (!stat.isFile()) throw new UnsafeFileError('not-regular', 'exists and is not a regular file: remove it');
}

function fsyncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, constants.O_RDONLY);
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Not every file system lets a directory be fsynced; the rename is still atomic.
  }
}

/**
 * Replaces `path` with `data` so that a reader sees the old or the new content and
 * never a torn file, even if the process is killed (pkg/atomicfile): a new temp file
 * in the same directory created with `mode` from the start (O_EXCL, no symlink
 * followed), written, fsynced, renamed over the target, the directory fsynced.
 * Missing directories are created 0700. A target that is a symlink is refused.
 */
export function writeFileAtomic(path: string, data: string, mode = 0o600): void {
  const dir = dirname(path);
  makeDirs(dir, 0o700);
  refuseUnsafeTarget(path);
  // node:crypto is loaded here, not at the top: reading the cache never needs it.
  const { randomBytes } = require('node:crypto') as typeof import('node:crypto');
  const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    try {
      fchmodSync(fd, mode);
      const bytes = Buffer.from(data, 'utf8');
      for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    try {
      unlinkSync(temp);
    } catch {
      // already renamed or never created
    }
    throw err;
  }
  fsyncDirectory(dir);
}

/** A one-line reason for a file-system error: its code and what to do. */
export function describeFsError(err: unknown): string {
  if (err instanceof UnsafeFileError) return err.message;
  const code = (err as NodeJS.ErrnoException).code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${code}): fix the permissions of the file and its directory`;
    case 'EISDIR':
      return 'is a directory, not a file (remove it)';
    case 'ENOTDIR':
      return 'a parent path is not a directory';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EROFS':
      return 'the file system is read-only';
    default:
      return code ? `file-system error ${code}` : err instanceof Error ? err.message : String(err);
  }
}
