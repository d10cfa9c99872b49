import { AuthTokens } from '../../../domain/login/auth/auth-tokens';
import type { Clock } from '../../shared/ports/clock.port';
import type { TokenCache } from '../ports/token-cache.port';
import { AuthScope, CacheRead, readCacheOf } from './auth-scope';

export interface CachedTokenPorts {
  readonly cache: TokenCache;
  readonly clock: Pick<Clock, 'now'>;
}

/** What the first step found: a record valid now, or the read GetToken goes on from. */
export type CachedTokens = { readonly valid: AuthTokens } | { readonly valid?: undefined; readonly read: CacheRead };

/**
 * get_token's first step (docs/login-contract.md, "Sign-in states"): the scope's record,
 * read once, and whether it is valid now. GetToken begins with it and handles every other
 * case (no record, an unusable file, expired or expiring); the read path of `auth token`
 * (infrastructure/entry/auth-read.ts) answers only a valid record and hands the rest to
 * GetToken, so the one rule of "valid now" serves both. It takes its ports as arguments:
 * the read path has no container (docs/performance.md, "The login flow").
 */
export async function cachedTokens(ports: CachedTokenPorts, scope: AuthScope): Promise<CachedTokens> {
  const read = await readCacheOf(ports.cache, scope);
  return read.tokens?.freshness(ports.clock.now()) === 'valid' ? { valid: read.tokens } : { read };
}
