import { AuthTokens } from '../../../domain/login/auth/auth-tokens';
import { TokenStore, TokenStoreKind } from '../../../domain/login/auth/token-store';

export const TOKEN_CACHE = Symbol('TokenCache');

/**
 * The per-domain token cache. `domain` is the active domain that locates the file
 * (its record may name another one). `read` gives undefined when there is no record
 * and throws `TokenCacheError` when one exists but cannot be used (a record whose secrets
 * are in a keyring that cannot be reached too), whichever store holds it; writes are
 * atomic, into the store asked for (`file` when not said), and a failed write leaves the
 * previous record usable.
 */
export interface TokenCache {
  read(domain: string): Promise<AuthTokens | undefined>;
  write(domain: string, tokens: AuthTokens, store?: TokenStoreKind): Promise<void>;
  /** Removes the record; false when there was none. */
  remove(domain: string): Promise<boolean>;
  /** Where the record of `domain` lives (for messages). */
  location(domain: string): string;
  /** Where the record of `domain` lives (the store holding it now), for status and `auth token --json`. */
  store(domain: string): TokenStore;
}
