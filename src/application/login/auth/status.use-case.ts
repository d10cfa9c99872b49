import { inject, injectable } from 'inversify';
import { StatusReport, statusReport } from '../../../domain/login/auth/status-report';
import { CLOCK, type Clock } from '../../shared/ports/clock.port';
import { TOKEN_CACHE, type TokenCache } from '../ports/token-cache.port';
import { AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';

/** `auth status`: the facts of the active domain's cache; being logged out is not an error. */
@injectable()
export class Status {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(TOKEN_CACHE) private readonly cache: TokenCache,
  ) {}

  async execute(target: AuthTarget): Promise<StatusReport> {
    const scope = await this.scopes.scope(target);
    const { tokens, problem } = await this.scopes.readCache(scope);
    return statusReport(tokens, this.clock.now(), this.cache.store(scope.cacheDomain), problem?.message);
  }
}
