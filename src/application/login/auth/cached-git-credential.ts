import { resolveDomain } from '../../../domain/login/auth/domain-resolution';
import { overridesFor } from '../../../domain/login/contexts/contexts';
import { serviceUrls } from '../../../domain/login/contexts/service-urls';
import {
  GitCredentialOperation,
  GitCredentialRequest,
  gitCredentialReply,
  parseGitCredentialRequest,
  requestIsFor,
} from '../../../domain/login/git/git-credential';
import type { ConfigStore } from '../ports/config-store.port';
import type { TokenCache } from '../ports/token-cache.port';
import { AuthScope, readCacheOf, scopeOf } from './auth-scope';
import { AuthTarget } from './auth-target';

export interface GitCredentialInput {
  readonly target: AuthTarget;
  readonly operation: GitCredentialOperation;
  /** What git wrote on standard input. */
  readonly request: string;
}

/** What the first step found: the reply for git, or what GitCredential goes on from. */
export type CachedGitCredential =
  | { readonly reply: string }
  | { readonly reply?: undefined; readonly request: GitCredentialRequest; readonly scope: AuthScope };

/**
 * GitCredential's first step (`auth git-credential`): '' for `store` and `erase`, which
 * leave skiff's cache alone; for `get`, the reply with the stored git token when the request
 * is for the git host of the domain the flag or the active context names. No reply for every
 * other case (the domain read from the cache, with its notice; a request for another host,
 * with its notice; no git token; an unusable cache file), which GitCredential handles from
 * here, and which the read path (infrastructure/entry/git-credential-read.ts) hands to it.
 * It takes its ports as arguments: the read path has no container.
 */
export async function cachedGitCredential(
  ports: { readonly config: ConfigStore; readonly cache: TokenCache },
  input: GitCredentialInput,
): Promise<CachedGitCredential> {
  const request = parseGitCredentialRequest(input.request);
  if (input.operation !== 'get') return { reply: '' };
  const scope = scopeOf(await ports.config.load(), input.target);
  const declined = { request, scope };
  if (!scope.flagDomain && !scope.context?.domain) return declined;
  const { domain } = await resolveDomain({
    flag: scope.flagDomain,
    context: scope.context?.domain,
    cached: async () => undefined,
    discovered: async () => undefined,
  });
  if (!requestIsFor(request, serviceUrls(domain, overridesFor(domain, scope.context)).gitHost)) return declined;
  const token = (await readCacheOf(ports.cache, scope)).tokens?.giteaToken;
  return token === undefined ? declined : { reply: gitCredentialReply(request, token) };
}
