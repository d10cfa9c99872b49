import { inject, injectable } from 'inversify';
import { StatusReport, statusReport } from '../../../domain/login/auth/status-report';
import { CLOCK, type Clock } from '../../shared/ports/clock.port';
import { AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';

/** `auth status`: the facts of the active domain's cache; being logged out is not an error. */
@injectable()
export class Status {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(target: AuthTarget): Promise<StatusReport> {
    const { tokens, problem } = await this.scopes.readCache(await this.scopes.scope(target));
    return statusReport(tokens, this.clock.now(), problem?.message);
  }
}
