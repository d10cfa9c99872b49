import { inject, injectable } from 'inversify';
import { AuthTokens } from '../../../domain/login/auth/auth-tokens';
import { loginTimedOut } from '../../../domain/login/auth/auth-errors';
import {
  AuthorizationRequest,
  authorizationParameters,
  authorizationUrl,
  CLIENT_ID,
  pushedAuthorizationUrl,
  pushEndpoint,
  redirectUriFor,
} from '../../../domain/login/auth/authorization-url';
import { IssuerExpectation } from '../../../domain/login/auth/callback-issuer';
import { CALLBACK_WAIT_MS, CallbackParameters, judgeCallback } from '../../../domain/login/auth/callback-request';
import { deriveNonce, NONCE_BYTES } from '../../../domain/login/auth/id-token-claims';
import { derivePkce, deriveState, STATE_BYTES, VERIFIER_BYTES } from '../../../domain/login/auth/pkce';
import { CALLBACK_LISTENER, type CallbackListener, type CallbackServer } from '../ports/callback-listener.port';
import { CLOCK, type Clock } from '../../shared/ports/clock.port';
import { HASHER, type Hasher } from '../ports/hasher.port';
import { IDENTITY_PROVIDER, type IdentityProvider, type ProviderMetadata } from '../ports/identity-provider.port';
import { NOTIFIER, type Notifier } from '../ports/notifier.port';
import { RANDOM, type Random } from '../ports/random.port';
import { TOKEN_CACHE, type TokenCache } from '../ports/token-cache.port';
import { AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';
import { BrowserOpener } from './browser-opener';
import { IdTokenCheck } from './id-token-check';
import { DpopProofs } from './dpop-proofs';
import { bindsTokens } from '../../../domain/login/auth/dpop';

export interface SsoLoginInput {
  readonly target: AuthTarget;
  /** Set by `auth login`, which resolved the domain once for both steps. */
  readonly domain?: string;
  /** Where the callback page sends the browser next (`auth login`: the git token page). */
  readonly redirectTo?: string;
  readonly openBrowser: boolean;
  /** Pins the callback port (--port), e.g. for an `ssh -L` tunnel. */
  readonly port?: number;
  /** No local display: the browser is on another machine, so the device sign-in is suggested when offered. */
  readonly noDisplay?: boolean;
}

export interface SsoLoginResult {
  readonly domain: string;
  readonly email?: string;
}

const TIMED_OUT: unique symbol = Symbol('timed out');

const suggestDevice =
  'No display here: if your browser is on another machine, `skiff auth login --device` signs in with a code ' +
  'instead of a callback to this one (or forward the callback port with `ssh -L <port>:127.0.0.1:<port>`).';

/** SSO login: steps 1-13 of docs/login-contract.md (authorization code flow with PKCE, loopback callback, verified id_token). */
@injectable()
export class SsoLogin {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(IDENTITY_PROVIDER) private readonly provider: IdentityProvider,
    @inject(CALLBACK_LISTENER) private readonly listener: CallbackListener,
    @inject(BrowserOpener) private readonly browser: BrowserOpener,
    @inject(TOKEN_CACHE) private readonly cache: TokenCache,
    @inject(RANDOM) private readonly random: Random,
    @inject(HASHER) private readonly hasher: Hasher,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(NOTIFIER) private readonly notifier: Notifier,
    @inject(IdTokenCheck) private readonly idTokens: IdTokenCheck,
    @inject(DpopProofs) private readonly dpop: DpopProofs,
  ) {}

  async execute(input: SsoLoginInput): Promise<SsoLoginResult> {
    const scope = await this.scopes.scope(input.target);
    const domain = input.domain ?? (await this.scopes.resolveDomain(scope));
    this.notifier.info(`Signing in to ${domain}`);
    const metadata = await this.provider.discover(this.scopes.urls(scope, domain).identityProvider);
    if (input.noDisplay === true && metadata.deviceAuthorizationEndpoint !== undefined) {
      this.notifier.info(suggestDevice);
    }
    const pkce = derivePkce(this.random.bytes(VERIFIER_BYTES), (bytes) => this.hasher.sha256(bytes));
    const state = deriveState(this.random.bytes(STATE_BYTES));
    const nonce = deriveNonce(this.random.bytes(NONCE_BYTES));
    const server = await this.listener.listen(input.port);
    let code: string;
    const redirectUri = redirectUriFor(server.port);
    try {
      const url = await this.authorizationUrl(metadata, scope.context?.par === 'always', {
        authorizationEndpoint: metadata.authorizationEndpoint,
        redirectUri,
        codeChallenge: pkce.challenge,
        state,
        nonce,
      });
      await this.browser.show(url, 'Open this URL in a browser to sign in:', input.openBrowser);
      const issuer: IssuerExpectation = {
        issuer: metadata.issuer,
        advertised: metadata.authorizationResponseIssParameterSupported === true,
      };
      ({ code } = await this.awaitCallback(server, state, issuer));
      await server.reply({ kind: 'success', redirectTo: input.redirectTo });
    } finally {
      await server.close();
    }
    // RFC 9449: with DPoP, the code exchange carries a proof of the domain's key, to which the tokens are bound.
    const dpop = bindsTokens(scope.context?.dpop === 'always')
      ? await this.dpop.forTokenEndpoint(scope.cacheDomain, scope.tokenStore)
      : undefined;
    const reply = await this.provider.exchangeCode(
      metadata.tokenEndpoint,
      { code, redirectUri, clientId: CLIENT_ID, codeVerifier: pkce.verifier },
      dpop,
    );
    const claims = await this.idTokens.received(reply, metadata, { nonce });
    await this.cache.write(scope.cacheDomain, AuthTokens.fromLogin(reply, domain, this.clock.now()), scope.tokenStore);
    return { domain, email: claims?.email };
  }

  /**
   * Step 6: the URL of the seed, or, when the provider requires pushed authorization requests
   * or the context asks for them (RFC 9126), the same parameters pushed first and a URL with
   * only `client_id` and the `request_uri` answered.
   */
  private async authorizationUrl(
    metadata: ProviderMetadata,
    contextAsks: boolean,
    request: AuthorizationRequest,
  ): Promise<string> {
    const endpoint = pushEndpoint(metadata, contextAsks, new URL(metadata.tokenEndpoint).host);
    if (endpoint === undefined) return authorizationUrl(request);
    const pushed = await this.provider.pushAuthorizationRequest(endpoint, authorizationParameters(request));
    return pushedAuthorizationUrl(metadata.authorizationEndpoint, pushed.requestUri);
  }

  /** Steps 8-9: the first /callback request within 300 seconds, judged (with RFC 9207's `iss`); a failure page on refusal. */
  private async awaitCallback(
    server: CallbackServer,
    state: string,
    issuer: IssuerExpectation,
  ): Promise<CallbackParameters> {
    const waiting = this.notifier.waiting(
      `Waiting for the browser to complete the sign-in on port ${server.port} (up to 5 minutes; Ctrl-C cancels)...`,
    );
    let target: string | typeof TIMED_OUT;
    try {
      const timer = this.clock.sleep(CALLBACK_WAIT_MS).then((): typeof TIMED_OUT => TIMED_OUT);
      target = await Promise.race([server.nextCallback(), timer]);
    } finally {
      waiting.done();
    }
    if (target === TIMED_OUT) throw loginTimedOut();
    try {
      return judgeCallback(target, state, issuer);
    } catch (err) {
      await server.reply({ kind: 'failure', reason: err instanceof Error ? err.message : String(err) });
      throw err;
    }
  }
}
