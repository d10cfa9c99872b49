import { inject, injectable } from 'inversify';
import { AuthTokens } from '../../../domain/login/auth/auth-tokens';
import { CLIENT_ID } from '../../../domain/login/auth/authorization-url';
import { ExchangeSubject, subjectTokenType } from '../../../domain/login/auth/token-exchange';
import { CLOCK, type Clock } from '../../shared/ports/clock.port';
import { SUBJECT_TOKENS, type SubjectTokens } from '../ports/subject-tokens.port';
import { TOKEN_CACHE, type TokenCache } from '../ports/token-cache.port';
import { AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';
import { TokenExchangeGrant } from './token-exchange-grant';

export interface TokenExchangeLoginInput {
  readonly target: AuthTarget;
  readonly subjectTokenFile: string;
  /** Absent: `urn:ietf:params:oauth:token-type:jwt`. */
  readonly subjectTokenType?: string;
  /** Absent: skiff's own client, `skiff-cli`. */
  readonly clientId?: string;
}

export interface TokenExchangeLoginResult {
  readonly domain: string;
  readonly subjectTokenFile: string;
}

/**
 * `auth login --subject-token-file`: a robot trades the token its CI job holds for a
 * platform token (RFC 8693). The cache keeps the client, the subject token's file (its
 * absolute path, never the token) and type, so `auth token` exchanges again when it
 * expires. Any failure writes nothing.
 */
@injectable()
export class TokenExchangeLogin {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(TokenExchangeGrant) private readonly grant: TokenExchangeGrant,
    @inject(SUBJECT_TOKENS) private readonly subjectTokens: SubjectTokens,
    @inject(TOKEN_CACHE) private readonly cache: TokenCache,
    @inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(input: TokenExchangeLoginInput): Promise<TokenExchangeLoginResult> {
    const subject: ExchangeSubject = {
      clientId: input.clientId ?? CLIENT_ID,
      subjectTokenFile: this.subjectTokens.absolute(input.subjectTokenFile),
      subjectTokenType: subjectTokenType(input.subjectTokenType),
    };
    const scope = await this.scopes.scope(input.target);
    const domain = await this.scopes.resolveDomain(scope);
    const reply = await this.grant.obtain(this.scopes.urls(scope, domain).identityProvider, subject);
    await this.cache.write(
      scope.cacheDomain,
      AuthTokens.fromTokenExchange(reply, domain, this.clock.now(), subject),
      scope.tokenStore,
    );
    return { domain, subjectTokenFile: subject.subjectTokenFile };
  }
}
