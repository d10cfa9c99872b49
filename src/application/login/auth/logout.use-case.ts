import { inject, injectable } from 'inversify';
import { AuthTokens } from '../../../domain/login/auth/auth-tokens';
import { CLIENT_ID } from '../../../domain/login/auth/authorization-url';
import { BOARD_CREDENTIALS, type BoardCredentials } from '../ports/board-credentials.port';
import { CLOCK, type Clock } from '../../shared/ports/clock.port';
import { IDENTITY_PROVIDER, type IdentityProvider } from '../ports/identity-provider.port';
import { DPOP_KEYS, type DpopKeys } from '../ports/dpop-keys.port';
import { NOTIFIER, type Notifier } from '../ports/notifier.port';
import { TOKEN_CACHE, type TokenCache } from '../ports/token-cache.port';
import { AuthScope, AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';

/** The whole revocation (discovery included) gets this long; the local logout never waits longer. */
export const REVOKE_BUDGET_MS = 5000;

export interface LogoutResult {
  /** false: there was no cache file (not an error). */
  readonly loggedOut: boolean;
  readonly domain: string;
  /** The refresh token was revoked at the provider. */
  readonly revoked: boolean;
}

/**
 * `auth logout`: removes the active domain's cache file (and the board tool
 * credentials derived from it, and its DPoP key), then revokes the refresh token at the provider when
 * discovery lists a revocation endpoint: best effort, within REVOKE_BUDGET_MS.
 */
@injectable()
export class Logout {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(TOKEN_CACHE) private readonly cache: TokenCache,
    @inject(BOARD_CREDENTIALS) private readonly boards: BoardCredentials,
    @inject(IDENTITY_PROVIDER) private readonly provider: IdentityProvider,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(NOTIFIER) private readonly notifier: Notifier,
    @inject(DPOP_KEYS) private readonly dpopKeys: DpopKeys,
  ) {}

  async execute(target: AuthTarget): Promise<LogoutResult> {
    const scope = await this.scopes.scope(target);
    const { tokens } = await this.scopes.readCache(scope);
    const loggedOut = await this.cache.remove(scope.cacheDomain);
    await this.boards.remove(scope.cacheDomain);
    // The DPoP key (RFC 9449) goes with the tokens bound to it: a new sign-in makes a new one.
    await this.dpopKeys.remove(scope.cacheDomain);
    const domain = tokens?.domain || scope.cacheDomain;
    const revoked = loggedOut && tokens !== undefined && tokens.canRefresh() ? await this.revoke(scope, tokens) : false;
    return { loggedOut, domain, revoked };
  }

  private async revoke(scope: AuthScope, tokens: AuthTokens): Promise<boolean> {
    const attempt = (async () => {
      const metadata = await this.provider.discover(
        this.scopes.urls(scope, tokens.domain).identityProvider,
        REVOKE_BUDGET_MS,
      );
      if (metadata.revocationEndpoint === undefined) return false;
      await this.provider.revoke(metadata.revocationEndpoint, tokens.refreshToken, CLIENT_ID, REVOKE_BUDGET_MS);
      return true;
    })().catch((err: unknown) => {
      this.notifier.warn(
        `the refresh token was not revoked at the provider: ${err instanceof Error ? err.message : String(err)}`,
      );
      return false;
    });
    const budget = this.clock.sleep(REVOKE_BUDGET_MS).then(() => false);
    return Promise.race([attempt, budget]);
  }
}
