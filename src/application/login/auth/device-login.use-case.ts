import { inject, injectable } from 'inversify';
import { AuthTokens } from '../../../domain/login/auth/auth-tokens';
import { CLIENT_ID, SCOPE } from '../../../domain/login/auth/authorization-url';
import {
  DeviceCode,
  deviceCodeExpired,
  deviceCodeLifetime,
  deviceFlowNotOffered,
  deviceSignInDenied,
  firstPollInterval,
  nextPollInterval,
} from '../../../domain/login/auth/device-grant';
import { TokenResponse } from '../../../domain/login/auth/token-response';
import { escapedControls } from '../../../domain/shared/quoted';
import { CLOCK, type Clock } from '../../shared/ports/clock.port';
import { DEVICE_AUTHORIZATION, type DeviceAuthorization } from '../ports/device-authorization.port';
import { IDENTITY_PROVIDER, type IdentityProvider } from '../ports/identity-provider.port';
import { NOTIFIER, type Notifier } from '../ports/notifier.port';
import { TOKEN_CACHE, type TokenCache } from '../ports/token-cache.port';
import { AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';
import { BrowserOpener } from './browser-opener';
import { IdTokenCheck } from './id-token-check';
import { SsoLoginResult } from './sso-login.use-case';

export interface DeviceLoginInput {
  readonly target: AuthTarget;
  /** Set by `auth login`, which resolved the domain once for both steps. */
  readonly domain?: string;
  readonly openBrowser: boolean;
}

/**
 * `auth sso --device` (and the first half of `auth login --device`): the device
 * authorization grant (RFC 8628) with the client id and scopes of the browser flow,
 * for a shell whose browser is elsewhere. The record is written exactly as the
 * browser flow writes it (SSO steps 12-13).
 */
@injectable()
export class DeviceLogin {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(IDENTITY_PROVIDER) private readonly provider: IdentityProvider,
    @inject(DEVICE_AUTHORIZATION) private readonly device: DeviceAuthorization,
    @inject(BrowserOpener) private readonly browser: BrowserOpener,
    @inject(TOKEN_CACHE) private readonly cache: TokenCache,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(NOTIFIER) private readonly notifier: Notifier,
    @inject(IdTokenCheck) private readonly idTokens: IdTokenCheck,
  ) {}

  async execute(input: DeviceLoginInput): Promise<SsoLoginResult> {
    const scope = await this.scopes.scope(input.target);
    const domain = input.domain ?? (await this.scopes.resolveDomain(scope));
    this.notifier.info(`Signing in to ${domain}`);
    const issuer = this.scopes.urls(scope, domain).identityProvider;
    const metadata = await this.provider.discover(issuer);
    if (metadata.deviceAuthorizationEndpoint === undefined) throw deviceFlowNotOffered(new URL(issuer).host);
    const code = await this.device.start(metadata.deviceAuthorizationEndpoint, CLIENT_ID, SCOPE);
    await this.show(code, input.openBrowser);
    const reply = await this.awaitApproval(metadata.tokenEndpoint, code);
    // No nonce in the device grant (RFC 8628 has no authorization request to carry one).
    const claims = await this.idTokens.received(reply, metadata);
    await this.cache.write(scope.cacheDomain, AuthTokens.fromLogin(reply, domain, this.clock.now()), scope.tokenStore);
    return { domain, email: claims?.email };
  }

  /** §3.3: the verification URI and the user code, and the URI that carries the code when there is one. */
  private async show(code: DeviceCode, openBrowser: boolean): Promise<void> {
    // The provider's text: escaped, so that it cannot write to the terminal (quoted.ts).
    const uri = escapedControls(code.verificationUri);
    this.notifier.info(`On any device, open ${uri} and enter the code:\n\n  ${escapedControls(code.userCode)}\n`);
    if (code.verificationUriComplete !== undefined) {
      await this.browser.show(code.verificationUriComplete, 'Or open this URL, which carries the code:', openBrowser);
    }
  }

  /** §3.4-3.5: polls at the server's interval until approved, denied or expired. */
  private async awaitApproval(tokenEndpoint: string, code: DeviceCode): Promise<TokenResponse> {
    // Both bounded (device-grant.ts): a provider's numbers never make a tight loop or an endless wait.
    const lifetime = deviceCodeLifetime(code);
    const deadline = this.clock.now().getTime() + lifetime * 1000;
    let interval = firstPollInterval(code);
    const minutes = Math.max(1, Math.round(lifetime / 60));
    const waiting = this.notifier.waiting(
      `Waiting for the sign-in to be approved (up to ${minutes} minute${minutes === 1 ? '' : 's'}; Ctrl-C cancels)...`,
    );
    try {
      for (;;) {
        // The wait between polls is the command's work: it keeps the process alive.
        await this.clock.sleep(interval * 1000, { keepAlive: true });
        const poll = await this.device.poll(tokenEndpoint, code.deviceCode, CLIENT_ID);
        if (poll.outcome === 'granted') return poll.reply;
        if (poll.outcome === 'denied') throw deviceSignInDenied();
        // The provider's expired_token, or its codes' announced lifetime over.
        if (poll.outcome === 'expired' || this.clock.now().getTime() >= deadline) throw deviceCodeExpired();
        interval = nextPollInterval(interval, poll.outcome);
      }
    } finally {
      waiting.done();
    }
  }
}
