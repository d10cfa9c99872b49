import { inject, injectable } from 'inversify';
import { resolveDomain } from '../../../domain/login/auth/domain-resolution';
import { overridesFor } from '../../../domain/login/contexts/contexts';
import { ServiceUrls, serviceUrls } from '../../../domain/login/contexts/service-urls';
import { CLUSTER_DISCOVERY, type ClusterDiscovery } from '../ports/cluster-discovery.port';
import { CONFIG_STORE, type ConfigStore } from '../ports/config-store.port';
import { NOTIFIER, type Notifier } from '../ports/notifier.port';
import { TOKEN_CACHE, type TokenCache } from '../ports/token-cache.port';
import { AuthScope, CacheRead, readCacheOf, scopeOf } from './auth-scope';
import { AuthTarget } from './auth-target';

export type { AuthScope, CacheRead } from './auth-scope';

/**
 * Where a command signs in: the active context (--context, current-context, `local`),
 * the cache file it uses, the domain (docs/login-contract.md, "Which domain") and the
 * service URLs (the context's overrides for its own domain).
 */
@injectable()
export class AuthScopes {
  constructor(
    @inject(CONFIG_STORE) private readonly config: ConfigStore,
    @inject(TOKEN_CACHE) private readonly cache: TokenCache,
    @inject(CLUSTER_DISCOVERY) private readonly discovery: ClusterDiscovery,
    @inject(NOTIFIER) private readonly notifier: Notifier,
  ) {}

  async scope(target: AuthTarget): Promise<AuthScope> {
    return scopeOf(await this.config.load(), target);
  }

  readCache(scope: AuthScope): Promise<CacheRead> {
    return readCacheOf(this.cache, scope);
  }

  async resolveDomain(scope: AuthScope): Promise<string> {
    const resolved = await resolveDomain({
      flag: scope.flagDomain,
      context: scope.context?.domain,
      cached: async () => (await this.readCache(scope)).tokens?.domain,
      discovered: () => this.discovery.discoverDomain(),
    });
    if (resolved.source === 'cache') this.notifier.info(`Using the domain ${resolved.domain} from the token cache.`);
    return resolved.domain;
  }

  /**
   * For a scope without a domain (no --domain, no context's domain) whose cache holds no
   * record: the configuration error of "Which domain" when no other source gives one, as
   * `auth login` would stop, instead of "not logged in" advising a login that cannot work.
   */
  async assertDomainKnown(scope: AuthScope): Promise<void> {
    if (scope.cacheDomain !== '') return;
    await resolveDomain({
      flag: scope.flagDomain,
      context: scope.context?.domain,
      cached: async () => undefined,
      discovered: () => this.discovery.discoverDomain(),
    });
  }

  urls(scope: AuthScope, domain: string): ServiceUrls {
    return serviceUrls(domain, overridesFor(domain, scope.context));
  }
}
