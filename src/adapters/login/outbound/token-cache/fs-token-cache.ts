import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { AuthTokens } from '../../../../domain/login/auth/auth-tokens';
import { TokenStore, TokenStoreKind } from '../../../../domain/login/auth/token-store';
import { TokenCacheError } from '../../../../domain/login/auth/auth-errors';
import { cacheFileName } from '../../../../domain/login/auth/safe-domain';
import { DomainError } from '../../../../domain/shared/errors';
import { SecretStore } from '../../../../application/login/ports/secret-store.port';
import { TokenCache } from '../../../../application/login/ports/token-cache.port';
import { describeFsError, writeFileAtomic } from '../../helpers/atomic-file';
import { readRegularFile, UnsafeFileError } from '../../../shared/helpers/no-follow-file';
import { KeyringReference, keyringReference, referenceAccounts, toKeyring, withSecrets } from './keyring-record';
import { decodeRecordObject, encodeRecord, parseRecordObject, recordJson, renderRecord } from './token-record';

/** A cache file is a few kilobytes; anything much larger is not ours. */
export const MAX_CACHE_BYTES = 1024 * 1024;

/** A reader racing a writer that replaced the keyring entries reads the file again this many times. */
const KEYRING_READ_ATTEMPTS = 3;

/** What to do after removing a link or stray file where the cache file belongs. */
function nextStep(err: unknown): string {
  return err instanceof UnsafeFileError ? ' and sign in again' : '';
}

let generations = 0;
/** A new keyring generation: unique per write on this machine (time, pid, a counter), no crypto on the fast path. */
function nextGeneration(): string {
  generations += 1;
  return `${Date.now().toString(36)}-${process.pid.toString(36)}-${generations.toString(36)}`;
}

const isKeyringUnavailable = (err: unknown) => err instanceof DomainError && err.code === 'AUTH.KEYRING_UNAVAILABLE';

/**
 * The token cache as one pretty-printed JSON file per domain, mode 0600, written
 * atomically (see writeFileAtomic). Read without following a link (a file found
 * readable by others is tightened to 0600 only when it is ours with one link; see
 * readRegularFile). Problems surface as TokenCacheError naming the file, never as a
 * stack trace.
 *
 * With the `keyring` store the secrets go to the OS keyring (`secrets`), split into
 * parts, under a new generation each write, and the file keeps the rest of the record
 * and a reference to them: the new entries are all written before the file is renamed
 * into place, and the previous generation is removed only after, so a failure at any
 * step leaves the previous record usable and a file never names a half-written entry.
 * A record is read from whichever store holds it.
 */
export class FsTokenCache implements TokenCache {
  constructor(
    private readonly directory: string,
    private readonly secrets?: SecretStore,
  ) {}

  location(domain: string): string {
    return join(this.directory, cacheFileName(domain));
  }

  store(domain: string): TokenStore {
    return { kind: this.heldIn(domain), path: this.location(domain) };
  }

  async read(domain: string): Promise<AuthTokens | undefined> {
    const path = this.location(domain);
    for (let attempt = 1; ; attempt++) {
      const record = this.readObject(path, true);
      if (record === undefined) return undefined;
      const ref = this.reference(path, record);
      if (ref === undefined) return this.decode(path, record);
      try {
        return this.decode(path, await withSecrets(record, domain, ref, (account) => this.keyring(path).get(account)));
      } catch (err) {
        if (err instanceof TokenCacheError) throw err;
        if (isKeyringUnavailable(err)) throw this.unavailable(path, err as Error);
        // Entries missing: a writer may have just replaced them; its file names the new ones.
        if (attempt < KEYRING_READ_ATTEMPTS) continue;
        throw new TokenCacheError(
          path,
          `${(err as Error).message}; run \`skiff auth login\` to replace it`,
          'AUTH.CACHE_UNREADABLE',
        );
      }
    }
  }

  async write(domain: string, tokens: AuthTokens, store: TokenStoreKind = 'file'): Promise<void> {
    const path = this.location(domain);
    const previous = this.previousReference(path);
    if (store === 'keyring') {
      const { file, entries } = toKeyring(recordJson(tokens), domain, nextGeneration());
      const written: string[] = [];
      try {
        for (const [account, secret] of entries) {
          await this.keyring(path).set(account, secret);
          written.push(account);
        }
        this.writeFile(path, renderRecord(file));
      } catch (err) {
        await this.forget(written);
        throw err;
      }
    } else {
      this.writeFile(path, encodeRecord(tokens));
    }
    if (previous !== undefined) await this.forget(referenceAccounts(domain, previous));
  }

  async remove(domain: string): Promise<boolean> {
    const path = this.location(domain);
    const previous = this.previousReference(path);
    try {
      unlinkSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw new TokenCacheError(path, `cannot be removed: ${describeFsError(err)}`, 'AUTH.CACHE_UNWRITABLE');
    }
    if (previous !== undefined) await this.forget(referenceAccounts(domain, previous));
    return true;
  }

  /** The file's JSON object, undefined when there is none. */
  private readObject(path: string, tighten: boolean): Record<string, unknown> | undefined {
    let text: string | undefined;
    try {
      text = readRegularFile(path, { limit: MAX_CACHE_BYTES, tighten });
    } catch (err) {
      throw new TokenCacheError(
        path,
        `cannot be read: ${describeFsError(err)}${nextStep(err)}`,
        'AUTH.CACHE_UNREADABLE',
      );
    }
    if (text === undefined) return undefined;
    try {
      return parseRecordObject(text);
    } catch (err) {
      throw this.unparsable(path, err);
    }
  }

  private reference(path: string, record: Record<string, unknown>): KeyringReference | undefined {
    try {
      return keyringReference(record);
    } catch (err) {
      throw this.unparsable(path, err);
    }
  }

  private decode(path: string, record: Record<string, unknown>): AuthTokens {
    try {
      return decodeRecordObject(record);
    } catch (err) {
      throw this.unparsable(path, err);
    }
  }

  /** Which store holds the record now (a file that cannot be read counts as `file`). */
  private heldIn(domain: string): TokenStoreKind {
    return this.previousReference(this.location(domain)) === undefined ? 'file' : 'keyring';
  }

  /** The keyring reference of the record in place, if any; a file that cannot be read has none. */
  private previousReference(path: string): KeyringReference | undefined {
    try {
      const record = this.readObject(path, false);
      return record === undefined ? undefined : keyringReference(record);
    } catch {
      return undefined;
    }
  }

  /** Best effort: entries no file refers to any more (a failure leaves an unused entry, never a lost token). */
  private async forget(accounts: readonly string[]): Promise<void> {
    if (accounts.length === 0 || this.secrets === undefined) return;
    for (const account of accounts) await this.secrets.delete(account).catch(() => undefined);
  }

  private keyring(path: string): SecretStore {
    if (this.secrets === undefined)
      throw new TokenCacheError(
        path,
        'needs the OS keyring, which this build of skiff has no access to',
        'AUTH.KEYRING_UNAVAILABLE',
      );
    return this.secrets;
  }

  private writeFile(path: string, text: string): void {
    try {
      writeFileAtomic(path, text, 0o600);
    } catch (err) {
      throw new TokenCacheError(
        path,
        `cannot be written: ${describeFsError(err)}${nextStep(err)}`,
        'AUTH.CACHE_UNWRITABLE',
      );
    }
  }

  private unparsable(path: string, err: unknown): TokenCacheError {
    return new TokenCacheError(
      path,
      `${(err as Error).message}; run \`skiff auth login\` to replace it`,
      'AUTH.CACHE_UNREADABLE',
    );
  }

  /** A record kept in a keyring that cannot be reached: the keyring's own line, naming the file. */
  private unavailable(path: string, err: Error): TokenCacheError {
    return new TokenCacheError(
      path,
      `its tokens are in the OS keyring, but ${err.message}`,
      'AUTH.KEYRING_UNAVAILABLE',
    );
  }
}
