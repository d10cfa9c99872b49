import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { AuthTokens } from '../../../../domain/login/auth/auth-tokens';
import { TokenStore } from '../../../../domain/login/auth/token-store';
import { TokenCacheError } from '../../../../domain/login/auth/auth-errors';
import { cacheFileName } from '../../../../domain/login/auth/safe-domain';
import { TokenCache } from '../../../../application/login/ports/token-cache.port';
import { describeFsError, writeFileAtomic } from '../../helpers/atomic-file';
import { readRegularFile, UnsafeFileError } from '../../helpers/no-follow-file';
import { decodeRecord, encodeRecord } from './token-record';

/** A cache file is a few kilobytes; anything much larger is not ours. */
export const MAX_CACHE_BYTES = 1024 * 1024;

/** What to do after removing a link or stray file where the cache file belongs. */
function nextStep(err: unknown): string {
  return err instanceof UnsafeFileError ? ' and sign in again' : '';
}

/**
 * The token cache as one pretty-printed JSON file per domain, mode 0600, written
 * atomically (see writeFileAtomic). Read without following a link (a file found
 * readable by others is tightened to 0600 only when it is ours with one link; see
 * readRegularFile). Problems surface as TokenCacheError naming the file, never as a
 * stack trace.
 */
export class FsTokenCache implements TokenCache {
  constructor(private readonly directory: string) {}

  location(domain: string): string {
    return join(this.directory, cacheFileName(domain));
  }

  store(domain: string): TokenStore {
    return { kind: 'file', path: this.location(domain) };
  }

  async read(domain: string): Promise<AuthTokens | undefined> {
    const path = this.location(domain);
    let text: string | undefined;
    try {
      text = readRegularFile(path, { limit: MAX_CACHE_BYTES, tighten: true });
    } catch (err) {
      throw new TokenCacheError(
        path,
        `cannot be read: ${describeFsError(err)}${nextStep(err)}`,
        'AUTH.CACHE_UNREADABLE',
      );
    }
    if (text === undefined) return undefined;
    try {
      return decodeRecord(text);
    } catch (err) {
      throw new TokenCacheError(
        path,
        `${(err as Error).message}; run \`skiff auth login\` to replace it`,
        'AUTH.CACHE_UNREADABLE',
      );
    }
  }

  async write(domain: string, tokens: AuthTokens): Promise<void> {
    const path = this.location(domain);
    try {
      writeFileAtomic(path, encodeRecord(tokens), 0o600);
    } catch (err) {
      throw new TokenCacheError(
        path,
        `cannot be written: ${describeFsError(err)}${nextStep(err)}`,
        'AUTH.CACHE_UNWRITABLE',
      );
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
