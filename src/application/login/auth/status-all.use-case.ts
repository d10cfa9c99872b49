import { inject, injectable } from 'inversify';
import { safeDomain } from '../../../domain/login/auth/safe-domain';
import { DomainStatus, statusList } from '../../../domain/login/auth/status-list';
import { statusReport } from '../../../domain/login/auth/status-report';
import { CLOCK, type Clock } from '../../shared/ports/clock.port';
import { CACHED_DOMAINS, type CachedDomains } from '../ports/cached-domains.port';
import { TOKEN_CACHE, type TokenCache } from '../ports/token-cache.port';
import { AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';

/**
 * `auth status` without --domain: every domain that has a cache (as `gh auth status`
 * lists hosts), the active one marked. Like `Status`, not being logged in is no error,
 * with no domain anywhere and no cache at all too (the specification's status output).
 */
@injectable()
export class StatusAll {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(CACHED_DOMAINS) private readonly cached: CachedDomains,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(TOKEN_CACHE) private readonly cache: TokenCache,
  ) {}

  async execute(target: AuthTarget): Promise<DomainStatus[]> {
    const scope = await this.scopes.scope(target);
    const files = await this.cached.list();
    const activeFile = safeDomain(scope.cacheDomain);
    if (!files.includes(activeFile)) files.unshift(activeFile);
    const now = this.clock.now();
    const entries = [];
    for (const file of files) {
      const cacheDomain = file === activeFile ? scope.cacheDomain : file;
      const { tokens, problem } = await this.scopes.readCache({ ...scope, cacheDomain });
      entries.push({ file, report: statusReport(tokens, now, this.cache.store(cacheDomain), problem?.message) });
    }
    return statusList(scope.cacheDomain, entries);
  }
}
