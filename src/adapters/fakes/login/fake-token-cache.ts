import { AuthTokens } from '../../../domain/login/auth/auth-tokens';
import { TokenStore, TokenStoreKind } from '../../../domain/login/auth/token-store';
import { TokenCacheError } from '../../../domain/login/auth/auth-errors';
import { cacheFileName } from '../../../domain/login/auth/safe-domain';
import { TokenCache } from '../../../application/login/ports/token-cache.port';

/**
 * The token cache in memory; a domain can be marked corrupt like an unparsable file. It
 * remembers the store each record was written to (`keyring` reports as such, `file` as memory).
 */
export class FakeTokenCache implements TokenCache {
  readonly records = new Map<string, AuthTokens>();
  readonly stores = new Map<string, TokenStoreKind>();
  private readonly corrupt = new Set<string>();
  writes = 0;

  location(domain: string): string {
    return `/fake/auth/${cacheFileName(domain)}`;
  }

  store(domain: string): TokenStore {
    return { kind: this.stores.get(domain) === 'keyring' ? 'keyring' : 'memory', path: this.location(domain) };
  }

  async read(domain: string): Promise<AuthTokens | undefined> {
    if (this.corrupt.has(domain)) {
      throw new TokenCacheError(this.location(domain), 'is not valid JSON', 'AUTH.CACHE_UNREADABLE');
    }
    return this.records.get(domain);
  }

  async write(domain: string, tokens: AuthTokens, store: TokenStoreKind = 'file'): Promise<void> {
    this.writes += 1;
    this.stores.set(domain, store);
    this.corrupt.delete(domain);
    this.records.set(domain, tokens);
  }

  async remove(domain: string): Promise<boolean> {
    const existed = this.records.has(domain) || this.corrupt.has(domain);
    this.records.delete(domain);
    this.stores.delete(domain);
    this.corrupt.delete(domain);
    return existed;
  }

  markCorrupt(domain: string): void {
    this.records.delete(domain);
    this.corrupt.add(domain);
  }
}
