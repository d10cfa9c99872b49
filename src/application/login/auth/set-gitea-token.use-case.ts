import { inject, injectable } from 'inversify';
import { AuthTokens } from '../../../domain/login/auth/auth-tokens';
import { noGitToken } from '../../../domain/login/auth/auth-errors';
import { CLOCK, type Clock } from '../../shared/ports/clock.port';
import { GIT_HOST, type GitHost } from '../ports/git-host.port';
import { NOTIFIER, type Notifier } from '../ports/notifier.port';
import { TOKEN_CACHE, type TokenCache } from '../ports/token-cache.port';
import { AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';

export interface SetGiteaTokenInput {
  readonly target: AuthTarget;
  readonly token: string;
  /** Set when the caller resolved the domain already (`auth login`, `auth git`). */
  readonly domain?: string;
}

export interface SetGiteaTokenResult {
  readonly domain: string;
  /** The git host's `login` of the token's owner, `unknown` when it sent none. */
  readonly login: string;
}

/**
 * Git login steps 3-4, also `auth set-gitea-token`: the token is verified against
 * the git host's /api/v1/user before it is saved; the record gets `gitea_token`
 * (starting from an empty record when there is none) and keeps everything else.
 */
@injectable()
export class SetGiteaToken {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(GIT_HOST) private readonly gitHost: GitHost,
    @inject(TOKEN_CACHE) private readonly cache: TokenCache,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(NOTIFIER) private readonly notifier: Notifier,
  ) {}

  async execute(input: SetGiteaTokenInput): Promise<SetGiteaTokenResult> {
    const token = input.token.trim();
    if (token === '') throw noGitToken();
    const scope = await this.scopes.scope(input.target);
    const domain = input.domain ?? (await this.scopes.resolveDomain(scope));
    const user = await this.gitHost.currentUser(this.scopes.urls(scope, domain).gitHost, token);
    const { tokens, problem } = await this.scopes.readCache(scope);
    if (problem !== undefined) this.notifier.warn(`${problem.message}; starting a new record`);
    const record = (tokens ?? AuthTokens.empty(domain, this.clock.now())).withGiteaToken(token, domain);
    await this.cache.write(scope.cacheDomain, record, scope.tokenStore);
    return { domain, login: user.login ?? 'unknown' };
  }
}
