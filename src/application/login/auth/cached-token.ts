import { AuthTokens } from '../../../domain/login/auth/auth-tokens';
import type { Clock } from '../../shared/ports/clock.port';
import type { ConfigStore } from '../ports/config-store.port';
import type { TokenCache } from '../ports/token-cache.port';
import { AuthScope, scopeOf } from './auth-scope';
import { AuthTarget } from './auth-target';

export interface CachedTokenPorts {
  readonly config: ConfigStore;
  readonly cache: TokenCache;
  readonly clock: Pick<Clock, 'now'>;
}

/**
 * get_token's first step alone (GetToken, docs/login-contract.md "Sign-in states"): the
 * cached record when it is valid now; undefined for every other case (no record, expired or
 * expiring, a refresh due), which GetToken handles in full. Errors are the ports' own.
 * `auth token` and `auth kube-credential` call it before anything else is loaded
 * (infrastructure/entry/auth-read.ts): it takes its ports as arguments, with no container.
 */
export async function validCachedTokens(
  ports: CachedTokenPorts,
  target: AuthTarget,
): Promise<{ readonly scope: AuthScope; readonly tokens: AuthTokens } | undefined> {
  const scope = scopeOf(await ports.config.load(), target);
  const tokens = await ports.cache.read(scope.cacheDomain);
  return tokens?.freshness(ports.clock.now()) === 'valid' ? { scope, tokens } : undefined;
}
