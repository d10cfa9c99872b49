import { inject, injectable } from 'inversify';
import { AuthTokens } from '../../../domain/login/auth/auth-tokens';
import { cacheUnusable, notLoggedIn, sessionExpired } from '../../../domain/login/auth/auth-errors';
import { CLIENT_ID } from '../../../domain/login/auth/authorization-url';
import { TokenDetails, tokenDetails } from '../../../domain/login/auth/token-details';
import { readableSubject } from '../../../domain/login/auth/id-token';
import { TokenResponse } from '../../../domain/login/auth/token-response';
import { CLOCK, type Clock } from '../../shared/ports/clock.port';
import { IDENTITY_PROVIDER, type IdentityProvider } from '../ports/identity-provider.port';
import { NOTIFIER, type Notifier } from '../ports/notifier.port';
import { REFRESH_LOCK, type RefreshLock } from '../ports/refresh-lock.port';
import { TOKEN_CACHE, type TokenCache } from '../ports/token-cache.port';
import { AuthScope, AuthScopes, CacheRead } from './auth-scopes';
import { AuthTarget } from './auth-target';
import { cachedTokens } from './cached-token';
import { ClientCredentialsGrant } from './client-credentials-grant';
import { IdTokenCheck } from './id-token-check';
import { TokenExchangeGrant } from './token-exchange-grant';
import { DpopProofs } from './dpop-proofs';
import { bindsTokens } from '../../../domain/login/auth/dpop';
import { DpopProver } from '../ports/identity-provider.port';

/**
 * get_token (docs/login-contract.md, "Sign-in states"): a valid access token from the
 * cache, refreshed under the domain's lock when it expires within 60 seconds. The cache
 * is read again once the lock is held, so commands that waited for another one's
 * refresh use its result instead of spending the (possibly rotated) refresh token a
 * second time.
 */
@injectable()
export class GetToken {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(TOKEN_CACHE) private readonly cache: TokenCache,
    @inject(REFRESH_LOCK) private readonly lock: RefreshLock,
    @inject(IDENTITY_PROVIDER) private readonly provider: IdentityProvider,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(NOTIFIER) private readonly notifier: Notifier,
    @inject(IdTokenCheck) private readonly idTokens: IdTokenCheck,
    @inject(ClientCredentialsGrant) private readonly robots: ClientCredentialsGrant,
    @inject(TokenExchangeGrant) private readonly exchanges: TokenExchangeGrant,
    @inject(DpopProofs) private readonly dpop: DpopProofs,
  ) {}

  async execute(target: AuthTarget): Promise<string> {
    return (await this.tokens(await this.scopes.scope(target))).accessToken;
  }

  /** `auth token --json`: the token (got as `execute` gets it), its expiry, scopes, sign-in kind and store. */
  async details(target: AuthTarget): Promise<TokenDetails> {
    const scope = await this.scopes.scope(target);
    return tokenDetails(await this.tokens(scope), this.cache.store(scope.cacheDomain));
  }

  /**
   * The whole record behind that token (plugins read its id token's claims too). The cached
   * answer comes first, as the read path of `auth token` gives it; only what it leaves is
   * handled here.
   */
  async tokens(scope: AuthScope): Promise<AuthTokens> {
    const ports = { cache: this.cache, clock: this.clock };
    const first = await cachedTokens(ports, scope);
    if (first.valid !== undefined) return first.valid;
    if (!(await this.usable(scope, first.read)).renewable()) throw sessionExpired();
    return this.lock.withLock(scope.cacheDomain, async () => {
      const again = await cachedTokens(ports, scope);
      if (again.valid !== undefined) return again.valid;
      const current = await this.usable(scope, again.read);
      const robot = current.robotClient();
      if (robot !== undefined) return this.obtainAgain(scope, current, (issuer) => this.robots.obtain(issuer, robot));
      const subject = current.exchangeSubject();
      if (subject !== undefined)
        return this.obtainAgain(scope, current, (issuer) => this.exchanges.obtain(issuer, subject));
      if (!current.canRefresh()) throw sessionExpired();
      return this.refresh(scope, current);
    });
  }

  /** The record a cache read found, or why there is none to use. */
  private async usable(scope: AuthScope, { tokens, problem }: CacheRead): Promise<AuthTokens> {
    if (problem !== undefined) throw cacheUnusable(problem);
    if (tokens !== undefined) return tokens;
    await this.scopes.assertDomainKnown(scope);
    throw notLoggedIn();
  }

  /**
   * A robot's token obtained again with its grant, client credentials or token exchange (it
   * has no refresh token); a failure is the grant's own error, one line (an unreadable
   * secret or subject token file, a refused client or subject token), and the cache is
   * left as it was.
   */
  private async obtainAgain(
    scope: AuthScope,
    tokens: AuthTokens,
    grant: (issuerUrl: string) => Promise<TokenResponse>,
  ): Promise<AuthTokens> {
    const reply = await grant(this.scopes.urls(scope, tokens.domain).identityProvider);
    const renewed = tokens.withObtainedAgain(reply, this.clock.now());
    await this.cache.write(scope.cacheDomain, renewed, scope.tokenStore);
    return renewed;
  }

  /**
   * RFC 9449 §5: a bound record refreshes with a proof of the key it is bound to (a public
   * client's refresh token is bound too); a context asking for DPoP binds the next token.
   */
  private async prover(scope: AuthScope, tokens: AuthTokens): Promise<DpopProver | undefined> {
    if (tokens.dpopBound()) {
      const key = await this.dpop.boundKey(scope.cacheDomain);
      return (method, url, nonce) => this.dpop.proof(key, { method, url, nonce });
    }
    if (!bindsTokens(scope.context?.dpop === 'always')) return undefined;
    return this.dpop.forTokenEndpoint(scope.cacheDomain, scope.tokenStore);
  }

  /** Refresh, discovering the token endpoint from the cached record's domain; a new id_token is verified before it is written. */
  private async refresh(scope: AuthScope, tokens: AuthTokens): Promise<AuthTokens> {
    let refreshed: AuthTokens;
    try {
      const urls = this.scopes.urls(scope, tokens.domain);
      const metadata = await this.provider.discover(urls.identityProvider);
      const reply = await this.provider.refresh(
        metadata.tokenEndpoint,
        tokens.refreshToken,
        CLIENT_ID,
        await this.prover(scope, tokens),
      );
      // A refreshed id_token is verified as a new one, and must name the same subject (OpenID Connect Core §12.2).
      await this.idTokens.received(reply, metadata, { subject: readableSubject(tokens.idToken) });
      refreshed = tokens.withRefreshed(reply, this.clock.now());
    } catch (err) {
      this.notifier.warn(`token refresh failed: ${err instanceof Error ? err.message : String(err)}`);
      throw sessionExpired();
    }
    await this.cache.write(scope.cacheDomain, refreshed, scope.tokenStore);
    return refreshed;
  }
}
