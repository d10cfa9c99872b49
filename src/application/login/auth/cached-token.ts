import { AuthTokens } from '../../../domain/login/auth/auth-tokens';
import { resolveDomain } from '../../../domain/login/auth/domain-resolution';
import { overridesFor } from '../../../domain/login/contexts/contexts';
import { serviceUrls } from '../../../domain/login/contexts/service-urls';
import { gitCredentialReply, parseGitCredentialRequest, requestIsFor } from '../../../domain/login/git/git-credential';
import type { Clock } from '../../shared/ports/clock.port';
import type { ConfigStore } from '../ports/config-store.port';
import type { TokenCache } from '../ports/token-cache.port';
import { AuthScope, scopeOf } from './auth-scope';
import { AuthTarget } from './auth-target';
import type { GitCredentialInput } from './git-credential.use-case';

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

/**
 * `auth git-credential` (GitCredential) from the cache alone: '' for `store` and `erase`,
 * which leave skiff's cache alone; for `get`, the reply with the stored git token when the
 * request is for the git host of a domain the flag or the active context names. Undefined
 * for every other case (the domain read from the cache, with its notice; a request for
 * another host, with its notice; no git token), which GitCredential answers in full.
 */
export async function cachedGitCredential(
  ports: Omit<CachedTokenPorts, 'clock'>,
  input: GitCredentialInput,
): Promise<string | undefined> {
  const request = parseGitCredentialRequest(input.request);
  if (input.operation !== 'get') return '';
  const scope = scopeOf(await ports.config.load(), input.target);
  const { domain } = await resolveDomain({
    flag: scope.flagDomain,
    context: scope.context?.domain,
    cached: async () => undefined,
    discovered: async () => undefined,
  });
  if (!requestIsFor(request, serviceUrls(domain, overridesFor(domain, scope.context)).gitHost)) return undefined;
  const token = (await ports.cache.read(scope.cacheDomain))?.giteaToken;
  return token === undefined ? undefined : gitCredentialReply(request, token);
}
