import { resolveDomain } from '../../../domain/login/auth/domain-resolution';
import { overridesFor } from '../../../domain/login/contexts/contexts';
import { serviceUrls } from '../../../domain/login/contexts/service-urls';
import { gitCredentialReply, parseGitCredentialRequest, requestIsFor } from '../../../domain/login/git/git-credential';
import type { ConfigStore } from '../ports/config-store.port';
import type { TokenCache } from '../ports/token-cache.port';
import { scopeOf } from './auth-scope';
import type { GitCredentialInput } from './git-credential.use-case';
/**
 * `auth git-credential` (GitCredential) from the cache alone: '' for `store` and `erase`,
 * which leave skiff's cache alone; for `get`, the reply with the stored git token when the
 * request is for the git host of a domain the flag or the active context names. Undefined
 * for every other case (the domain read from the cache, with its notice; a request for
 * another host, with its notice; no git token), which GitCredential answers in full.
 */
export async function cachedGitCredential(
  ports: { readonly config: ConfigStore; readonly cache: TokenCache },
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
