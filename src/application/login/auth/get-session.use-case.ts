import { inject, injectable } from 'inversify';
import { readableEmail } from '../../../domain/login/auth/id-token';
import { ServiceUrls } from '../../../domain/login/contexts/service-urls';
import { AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';
import { GetToken } from './get-token.use-case';
import { AuthorizationHeaders, ResourceAuthorization } from './resource-authorization';

/** What a plugin's command works with: where it is signed in, the services there, a valid token. */
export interface Session {
  /** The active context (--context, current-context, `local`); undefined when there is none. */
  readonly context?: string;
  /** The domain, resolved as every auth command resolves it. */
  readonly domain: string;
  /** The service base URLs of that domain, with the context's overrides. */
  readonly urls: ServiceUrls;
  /** Valid for more than 60 s from now: refreshed under the domain's lock when it was not. */
  readonly accessToken: string;
  readonly expiresAt: Date;
  /** The e-mail claim of the id token when it has one (for display: the signature is not verified). */
  readonly identity?: string;
  /** `DPoP` when the token is bound to the domain's DPoP key (RFC 9449), else `Bearer`. */
  readonly tokenType: 'Bearer' | 'DPoP';
  /**
   * The headers of one request to `url` with the token: `Authorization: Bearer ...`, or for a
   * DPoP-bound token `Authorization: DPoP ...` and a fresh `DPoP` proof for that method and URL.
   * Call it for every request: a proof is good for one.
   */
  authorization(method: string, url: string): Promise<AuthorizationHeaders>;
}

/**
 * The session of the active context, for commands that plugins add: the domain and
 * URLs as `boards list` resolves them, and the token exactly as `auth token` gets
 * it (GetToken: the cache, and a refresh under the per-domain lock when due).
 */
@injectable()
export class GetSession {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(GetToken) private readonly getToken: GetToken,
    @inject(ResourceAuthorization) private readonly resources: ResourceAuthorization,
  ) {}

  async execute(target: AuthTarget): Promise<Session> {
    const scope = await this.scopes.scope(target);
    const domain = await this.scopes.resolveDomain(scope);
    const urls = this.scopes.urls(scope, domain);
    const tokens = await this.getToken.tokens(scope);
    return {
      context: scope.context?.name,
      domain,
      urls,
      accessToken: tokens.accessToken,
      expiresAt: tokens.expiresAt,
      identity: readableEmail(tokens.idToken),
      tokenType: tokens.dpopBound() ? 'DPoP' : 'Bearer',
      authorization: await this.resources.headers(scope, tokens),
    };
  }
}
