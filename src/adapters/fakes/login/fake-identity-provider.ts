import { TokenResponse } from '../../../domain/login/auth/token-response';
import { IdentityError, NetworkError } from '../../../domain/shared/errors';
import { redact } from '../../login/helpers/http-client';
import {
  ClientCredentialsRequest,
  CodeExchange,
  DpopProver,
  IdentityProvider,
  ProviderMetadata,
  PushedAuthorization,
  TokenExchangeRequest,
} from '../../../application/login/ports/identity-provider.port';

export type TokenCall =
  | {
      readonly grant: 'authorization_code';
      readonly endpoint: string;
      readonly request: CodeExchange;
      /** The DPoP proof sent with it (RFC 9449), when one was. */
      readonly dpop?: string;
    }
  | {
      readonly grant: 'refresh_token';
      readonly endpoint: string;
      readonly refreshToken: string;
      readonly clientId: string;
      readonly dpop?: string;
    }
  | { readonly grant: 'client_credentials'; readonly endpoint: string; readonly request: ClientCredentialsRequest }
  | { readonly grant: 'token_exchange'; readonly endpoint: string; readonly request: TokenExchangeRequest };

/**
 * An identity provider in memory, configured with what its HTTP counterpart would
 * answer (the contract tests hold both to the same behaviour).
 */
export class FakeIdentityProvider implements IdentityProvider {
  metadata: ProviderMetadata = {
    issuer: 'https://auth.example.com',
    jwksUri: 'https://auth.example.com/jwks',
    authorizationEndpoint: 'https://auth.example.com/auth',
    tokenEndpoint: 'https://auth.example.com/token',
  };
  /** When set, discovery answers this HTTP status. */
  discoveryStatus: number | undefined;
  /** The next token replies, in order; a number is a failure status with `failureBody`. */
  tokenReplies: Array<TokenResponse | number> = [];
  failureBody = '{"error":"invalid_grant"}';
  readonly discoveries: string[] = [];
  readonly tokenCalls: TokenCall[] = [];
  readonly revocations: Array<{ endpoint: string; token: string }> = [];
  /** The pushed authorization requests received (RFC 9126), and what the next one is answered. */
  readonly pushes: Array<{ endpoint: string; parameters: ReadonlyArray<readonly [string, string]> }> = [];
  pushReply: PushedAuthorization | number = { requestUri: 'urn:ietf:params:oauth:request_uri:fake-1', expiresIn: 60 };
  /** Never settles discovery (a silent host). */
  hangDiscovery = false;

  async discover(issuerUrl: string): Promise<ProviderMetadata> {
    this.discoveries.push(issuerUrl);
    if (this.hangDiscovery) return new Promise(() => undefined);
    if (this.discoveryStatus !== undefined) {
      throw new NetworkError(
        `the identity provider at ${new URL(issuerUrl).host} answered discovery with HTTP ${this.discoveryStatus}: check the domain`,
        'OIDC.DISCOVERY_STATUS',
      );
    }
    return this.metadata;
  }

  async exchangeCode(endpoint: string, request: CodeExchange, dpop?: DpopProver): Promise<TokenResponse> {
    const proof = dpop === undefined ? undefined : await dpop('POST', endpoint);
    this.tokenCalls.push({
      grant: 'authorization_code',
      endpoint,
      request,
      ...(proof === undefined ? {} : { dpop: proof }),
    });
    return this.nextReply(endpoint, 'the code exchange');
  }

  async refresh(endpoint: string, refreshToken: string, clientId: string, dpop?: DpopProver): Promise<TokenResponse> {
    const proof = dpop === undefined ? undefined : await dpop('POST', endpoint);
    this.tokenCalls.push({
      grant: 'refresh_token',
      endpoint,
      refreshToken,
      clientId,
      ...(proof === undefined ? {} : { dpop: proof }),
    });
    return this.nextReply(endpoint, 'the token refresh');
  }

  async clientCredentials(endpoint: string, request: ClientCredentialsRequest): Promise<TokenResponse> {
    this.tokenCalls.push({ grant: 'client_credentials', endpoint, request });
    return this.nextReply(endpoint, 'the client credentials grant');
  }

  async tokenExchange(endpoint: string, request: TokenExchangeRequest): Promise<TokenResponse> {
    this.tokenCalls.push({ grant: 'token_exchange', endpoint, request });
    return this.nextReply(endpoint, 'the token exchange', [request.subjectToken]);
  }

  async pushAuthorizationRequest(
    endpoint: string,
    parameters: ReadonlyArray<readonly [string, string]>,
  ): Promise<PushedAuthorization> {
    this.pushes.push({ endpoint, parameters });
    if (typeof this.pushReply === 'number') {
      throw new IdentityError(
        `the identity provider at ${new URL(endpoint).host} refused the pushed authorization request: HTTP ${this.pushReply}: ${this.failureBody}`,
        'OIDC.PAR_STATUS',
      );
    }
    return this.pushReply;
  }

  async revoke(endpoint: string, token: string): Promise<void> {
    this.revocations.push({ endpoint, token });
  }

  get refreshes(): number {
    return this.tokenCalls.filter((c) => c.grant === 'refresh_token').length;
  }

  /** A failure's body has `secrets` redacted, as the HTTP adapter's (the contract test checks both). */
  private nextReply(endpoint: string, what: string, secrets: readonly string[] = []): TokenResponse {
    const reply = this.tokenReplies.shift();
    if (reply === undefined) throw new Error('FakeIdentityProvider: no token reply configured');
    if (typeof reply === 'number') {
      throw new IdentityError(
        `the identity provider at ${new URL(endpoint).host} refused ${what}: HTTP ${reply}: ${redact(this.failureBody, [...secrets])}`,
        'OIDC.TOKEN_STATUS',
      );
    }
    return reply;
  }
}
