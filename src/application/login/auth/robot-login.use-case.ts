import { inject, injectable } from 'inversify';
import { AuthTokens } from '../../../domain/login/auth/auth-tokens';
import { CLOCK, type Clock } from '../../shared/ports/clock.port';
import { CLIENT_SECRETS, type ClientSecrets } from '../ports/client-secrets.port';
import { TOKEN_CACHE, type TokenCache } from '../ports/token-cache.port';
import { AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';
import { ClientCredentialsGrant } from './client-credentials-grant';

export interface RobotLoginInput {
  readonly target: AuthTarget;
  readonly clientId: string;
  /** Absent: the secret is SKIFF_CLIENT_SECRET's. */
  readonly clientSecretFile?: string;
}

export interface RobotLoginResult {
  readonly domain: string;
  readonly clientId: string;
}

/**
 * `auth login --client-id`: a robot signs in with the client credentials grant. The cache
 * keeps the client id and the secret's file (its absolute path, never the secret), so
 * `auth token` obtains a new token the same way when it expires. Any failure writes nothing.
 */
@injectable()
export class RobotLogin {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(ClientCredentialsGrant) private readonly grant: ClientCredentialsGrant,
    @inject(CLIENT_SECRETS) private readonly secrets: ClientSecrets,
    @inject(TOKEN_CACHE) private readonly cache: TokenCache,
    @inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(input: RobotLoginInput): Promise<RobotLoginResult> {
    const scope = await this.scopes.scope(input.target);
    const domain = await this.scopes.resolveDomain(scope);
    const client = {
      clientId: input.clientId,
      ...(input.clientSecretFile === undefined
        ? {}
        : { clientSecretFile: this.secrets.absolute(input.clientSecretFile) }),
    };
    const reply = await this.grant.obtain(this.scopes.urls(scope, domain).identityProvider, client);
    await this.cache.write(
      scope.cacheDomain,
      AuthTokens.fromClientCredentials(reply, domain, this.clock.now(), client),
      scope.tokenStore,
    );
    return { domain, clientId: input.clientId };
  }
}
