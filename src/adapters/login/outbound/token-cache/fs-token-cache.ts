import { closeSync, constants, fchmodSync, fstatSync, openSync, readSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { AuthTokens } from '../../../../domain/login/auth/auth-tokens';
import { TokenCacheError } from '../../../../domain/login/auth/auth-errors';
import { cacheFileName } from '../../../../domain/login/auth/safe-domain';
import { TokenCache } from '../../../../application/login/ports/token-cache.port';
import { describeFsError, writeFileAtomic } from '../../helpers/atomic-file';
import { decodeRecord, encodeRecord } from './token-record';

/** A cache file is a few kilobytes; anything much larger is not ours. */
const MAX_CACHE_BYTES = 1024 * 1024;

/**
 * Reads a whole small file through one descriptor; undefined when it does not exist.
 * A regular file readable by others is tightened to 0600 on the spot.
 */
export function readPrivateFile(path: string, limit = MAX_CACHE_BYTES): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    if (!stat.isFile()) throw new Error('is not a regular file');
    if (stat.size > limit) throw new Error(`is larger than ${limit} bytes`);
    if ((stat.mode & 0o077) !== 0 && stat.uid === process.getuid?.()) fchmodSync(fd, 0o600);
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
 * The token cache as one pretty-printed JSON file per domain, mode 0600, written
 * atomically (see writeFileAtomic). Problems surface as TokenCacheError naming the
 * file, never as a stack trace.
 */
export class FsTokenCache implements TokenCache {
  constructor(private readonly directory: string) {}

  location(domain: string): string {
    return join(this.directory, cacheFileName(domain));
  }

  async read(domain: string): Promise<AuthTokens | undefined> {
    const path = this.location(domain);
    let text: string | undefined;
    try {
      text = readPrivateFile(path);
    } catch (err) {
      throw new TokenCacheError(path, `cannot be read: ${describeFsError(err)}`, 'AUTH.CACHE_UNREADABLE');
    }
    if (text === undefined) return undefined;
    try {
      return decodeRecord(text);
    } catch (err) {
      throw new TokenCacheError(path, `${(err as Error).message}; run \`skiff auth login\` to replace it`, 'AUTH.CACHE_UNREADABLE');
    }
  }

  async write(domain: string, tokens: AuthTokens): Promise<void> {
    const path = this.location(domain);
    try {
      writeFileAtomic(path, encodeRecord(tokens), 0o600);
    } catch (err) {
      throw new TokenCacheError(path, `cannot be written: ${describeFsError(err)}`, 'AUTH.CACHE_UNWRITABLE');
    }
  }

  async remove(domain: string): Promise<boolean> {
    const path = this.location(domain);
    try {
      unlinkSync(path);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw new TokenCacheError(path, `cannot be removed: ${describeFsError(err)}`, 'AUTH.CACHE_UNWRITABLE');
    }
  }
}
