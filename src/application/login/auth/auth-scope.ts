import { AuthTokens } from '../../../domain/login/auth/auth-tokens';
import { TokenCacheError } from '../../../domain/login/auth/auth-errors';
import { TokenStoreKind } from '../../../domain/login/auth/token-store';
import { Context, SkiffConfig, selectContext } from '../../../domain/login/contexts/contexts';
import type { TokenCache } from '../ports/token-cache.port';
import { AuthTarget } from './auth-target';

/** The active context and the domain whose cache file the command uses. */
export interface AuthScope {
  readonly context?: Context;
  /** --domain, else the active context's domain, else '' (the file default.json). */
  readonly cacheDomain: string;
  readonly flagDomain?: string;
  /** Where the context keeps its tokens' secrets (`file` without a context or a setting). */
  readonly tokenStore: TokenStoreKind;
}

/** A command's scope in the contexts file: the context --context or current-context names (`local` without either). */
export function scopeOf(config: SkiffConfig, target: AuthTarget): AuthScope {
  const context = selectContext(config, target.context);
  return {
    context,
    cacheDomain: target.domain || context?.domain || '',
    flagDomain: target.domain || undefined,
    tokenStore: context?.tokenStore ?? 'file',
  };
}

/** A cache read that tells an absent record from an unusable file. */
export type CacheRead = { readonly tokens?: AuthTokens; readonly problem?: TokenCacheError };

/** The scope's record, or what makes its file unusable (every other error is the port's own). */
export async function readCacheOf(cache: TokenCache, scope: AuthScope): Promise<CacheRead> {
  try {
    return { tokens: await cache.read(scope.cacheDomain) };
  } catch (err) {
    if (err instanceof TokenCacheError) return { problem: err };
    throw err;
  }
}
