import { ClientAuthMethod } from '../../../domain/login/auth/client-credentials';
import { TokenResponse } from '../../../domain/login/auth/token-response';

export const IDENTITY_PROVIDER = Symbol('IdentityProvider');

/** The read fields of the discovery document (OpenID Connect Discovery 1.0 §3, RFC 8414 §2). */
export interface ProviderMetadata {
  /** The document's `issuer`, else the URL discovery was asked at: id_tokens' `iss` must equal it. */
  readonly issuer: string;
  /** The provider's signing keys (a JWK Set), against which id_tokens are verified. */
  readonly jwksUri?: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly revocationEndpoint?: string;
  /** RFC 8628 §4: present when the provider offers the device sign-in. */
  readonly deviceAuthorizationEndpoint?: string;
  /** RFC 8414 §2: the grants the provider offers, when listed. */
  readonly grantTypesSupported?: readonly string[];
  /** RFC 8414 §2: how clients may authenticate at the token endpoint, when listed. */
  readonly tokenEndpointAuthMethodsSupported?: readonly string[];
  /** RFC 9207 §3: true when every authorization response carries `iss`. */
  readonly authorizationResponseIssParameterSupported?: boolean;
  /** RFC 9126 §5: where authorization requests are pushed, when the provider takes them. */
  readonly pushedAuthorizationRequestEndpoint?: string;
  /** RFC 9126 §5: true when the provider takes authorization requests only pushed. */
  readonly requirePushedAuthorizationRequests?: boolean;
  /** RFC 9449 §5.1: the JWS algorithms the provider accepts in DPoP proofs, when it takes them. */
  readonly dpopSigningAlgValuesSupported?: readonly string[];
}

/** RFC 9126 §2.2: what the pushed authorization request endpoint answers. */
export interface PushedAuthorization {
  readonly requestUri: string;
  readonly expiresIn: number;
}

/** RFC 6749 §4.4.2: a confidential client's token request, authenticated as `authMethod` says. */
export interface ClientCredentialsRequest {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly authMethod: ClientAuthMethod;
  /** Absent: no scope parameter (the provider's default for the client). */
  readonly scope?: string;
}

/** RFC 8693 §2.1: a public client trades the subject token for an access token. */
export interface TokenExchangeRequest {
  readonly clientId: string;
  readonly subjectToken: string;
  readonly subjectTokenType: string;
}

/**
 * Makes a DPoP proof (RFC 9449 §4) for one request to the token endpoint with the domain's
 * key; `nonce` is the server's `DPoP-Nonce` when it asked for one (§8).
 */
export type DpopProver = (method: string, url: string, nonce?: string) => Promise<string>;

export interface CodeExchange {
  readonly code: string;
  readonly redirectUri: string;
  readonly clientId: string;
  readonly codeVerifier: string;
}

/**
 * The OpenID provider. Failures arrive as domain errors: discovery with a failure
 * status or an unreachable host is a NetworkError; a token request answered with a
 * failure status is an IdentityError with the status and body.
 */
export interface IdentityProvider {
  /** GET <issuer>/.well-known/openid-configuration. */
  discover(issuerUrl: string, timeoutMs?: number): Promise<ProviderMetadata>;
  /** With `dpop`, every request carries a proof, and a `use_dpop_nonce` refusal is retried once with the nonce given. */
  exchangeCode(tokenEndpoint: string, request: CodeExchange, dpop?: DpopProver): Promise<TokenResponse>;
  refresh(tokenEndpoint: string, refreshToken: string, clientId: string, dpop?: DpopProver): Promise<TokenResponse>;
  /** RFC 6749 §4.4: the client credentials grant. */
  clientCredentials(tokenEndpoint: string, request: ClientCredentialsRequest): Promise<TokenResponse>;
  /** RFC 8693: the token exchange, asking for an access token. */
  tokenExchange(tokenEndpoint: string, request: TokenExchangeRequest): Promise<TokenResponse>;
  /** RFC 9126 §2.1: pushes the authorization request's parameters (a public client: `client_id` among them). */
  pushAuthorizationRequest(
    endpoint: string,
    parameters: ReadonlyArray<readonly [string, string]>,
  ): Promise<PushedAuthorization>;
  /** RFC 7009 revocation of a refresh token; bounded by `timeoutMs`. */
  revoke(revocationEndpoint: string, refreshToken: string, clientId: string, timeoutMs: number): Promise<void>;
}
