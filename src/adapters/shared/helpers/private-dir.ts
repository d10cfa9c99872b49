import { lstatSync } from 'node:fs';
import { ConfigurationError } from '../../../domain/shared/errors';
import { fsReason, makeDirs } from './make-dirs';

/**
 * Whether `dir`, when it exists, is a directory of this user's that nobody else may
 * write: sockets and FIFOs in a directory another user can rename or replace things
 * in (a /tmp/skiff-<uid> made in advance by someone else) could be swapped for theirs.
 */
export function checkPrivateDir(dir: string): void {
  let stats;
  try {
    stats = lstatSync(dir);
  } catch {
    return;
  }
  const uid = process.getuid?.();
  const why = !stats.isDirectory()
    ? 'it is not a directory'
    : uid !== undefined && stats.uid !== uid
      ? `it belongs to uid ${stats.uid}`
      : (stats.mode & 0o022) !== 0
        ? `others may write in it (mode ${(stats.mode & 0o777).toString(8)})`
        : undefined;
  if (why !== undefined) {
    throw new ConfigurationError(
      `${dir} is not a private directory of yours (${why}): remove it, or set XDG_RUNTIME_DIR to one that is`,
      'PATH.NOT_PRIVATE',
    );
  }
}

/** Makes `dir` (0700) when missing, then checks it as checkPrivateDir does. */
export function ensurePrivateDir(dir: string): void {
  try {
    makeDirs(dir, 0o700);
  } catch (err) {
    throw new ConfigurationError(`cannot create ${dir}: ${fsReason(err)}`, 'PATH.CANNOT_CREATE');
  }
  checkPrivateDir(dir);
}
