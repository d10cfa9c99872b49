import { closeSync, constants, fchmodSync, fstatSync, lstatSync, openSync, readSync, Stats } from 'node:fs';

/**
 * A file skiff will not use as it finds it (a symbolic link, not a regular file, a
 * shared inode it would have to chmod). The message says what it is and what to do,
 * without the path: callers name the file and may add their own next step.
 */
export class UnsafeFileError extends Error {
  constructor(
    readonly found: 'symlink' | 'not-regular' | 'shared-inode',
    message: string,
  ) {
    super(message);
  }
}

export function symlinkRefused(): UnsafeFileError {
  return new UnsafeFileError(
    'symlink',
    'is a symbolic link, which skiff never follows for its own files: remove the link',
  );
}

export interface ReadOptions {
  /** Anything larger is not ours. */
  readonly limit: number;
  /**
   * Follow a symbolic link at `path` itself (never for files skiff writes or
   * chmods; the contexts file only, see YamlConfigStore). What was opened must
   * still be a regular file.
   */
  readonly followLink?: boolean;
  /**
   * A file readable by others is tightened to 0600 through the open descriptor,
   * only if it is ours and has no other hard link: another name for the same
   * inode may be any file (as root, /etc/passwd), whose mode is not ours to change.
   */
  readonly tighten?: boolean;
}

function refuseOpenError(path: string, err: unknown): never {
  // O_NOFOLLOW fails with ELOOP on a link at the last component (dangling or not).
  if ((err as NodeJS.ErrnoException).code === 'ELOOP') {
    let link = false;
    try {
      link = lstatSync(path).isSymbolicLink();
    } catch {
      // gone since: report the open's own error
    }
    if (link) throw symlinkRefused();
  }
  throw err;
}

function checkOpened(stat: Stats, limit: number): void {
  if (stat.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
  if (!stat.isFile()) throw new UnsafeFileError('not-regular', 'is not a regular file: remove it');
  if (stat.size > limit) throw new Error(`is larger than ${limit} bytes`);
}

function tightenIfOurs(fd: number, stat: Stats): void {
  if ((stat.mode & 0o077) === 0 || stat.uid !== process.getuid?.()) return;
  if (stat.nlink !== 1) {
    throw new UnsafeFileError(
      'shared-inode',
      `is readable by others and has ${stat.nlink} hard links: skiff does not change the mode of a file that has other names; remove it`,
    );
  }
  fchmodSync(fd, 0o600);
}

/**
 * Reads a whole small regular file through one descriptor, opened with O_NOFOLLOW
 * (unless `followLink`) and O_NONBLOCK (a FIFO planted there cannot hang the
 * command, nor the event loop of a serving process); what was opened is checked with
 * fstat before anything else is done with it, and no more than its size is read (a
 * device or a growing file cannot fill the memory). Undefined when the file does not exist.
 * Both products read their own and their users' files through it: the login flow its
 * cache, contexts and secrets, the shim what a bundle, a checkpoint or a task dir holds.
 */
export function readRegularFile(path: string, options: ReadOptions): string | undefined {
  let fd: number;
  try {
    const flags =
      constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY | (options.followLink ? 0 : constants.O_NOFOLLOW);
    fd = openSync(path, flags);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    refuseOpenError(path, err);
  }
  try {
    const stat = fstatSync(fd);
    checkOpened(stat, options.limit);
    if (options.tighten) tightenIfOurs(fd, stat);
    const buffer = Buffer.alloc(stat.size);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * What readRegularFile's error says of the file, for a one-line message `<file> <this>`:
 * a link, not a regular file (a FIFO, a device), too large or a directory in its own words,
 * anything else by its errno.
 */
export function unreadableReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (err instanceof UnsafeFileError || code === undefined) return (err as Error).message;
  return code === 'EISDIR' ? 'is a directory' : `cannot be read (${code})`;
}
