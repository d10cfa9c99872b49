import { TokenResponse } from '../../../../domain/login/auth/token-response';
import { formEncode } from '../../../../domain/login/auth/percent-encoding';
import { IdentityError, NetworkError } from '../../../../domain/shared/errors';
import {
  ClientCredentialsRequest,
  CodeExchange,
  DpopProver,
  IdentityProvider,
  ProviderMetadata,
  PushedAuthorization,
  TokenExchangeRequest,
} from '../../../../application/login/ports/identity-provider.port';
import { dpopNonce } from '../../../../domain/login/auth/dpop';
import { ACCESS_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT } from '../../../../domain/login/auth/token-exchange';
import { HttpClient, HttpReply, hostOf, oneLine, parseJsonReply, redact } from '../../helpers/http-client';

const ok = (status: number) => status >= 200 && status < 300;
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** An endpoint from a discovery document must be https (plain http only on loopback). */
function endpoint(doc: Record<string, unknown>, field: string, host: string, required: boolean): string | undefined {
  const value = doc[field];
  if (value === undefined && !required) return undefined;
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || !(url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.test(url.hostname)))) {
    throw new NetworkError(
      `the discovery document of ${host} has no usable ${field} (an https URL is required)`,
      'OIDC.BAD_DISCOVERY',
    );
  }
  // The URL as checked (normalised, percent-encoded), not the string as received: it is printed and opened.
  return url.href;
}

/** A list of strings from a discovery document, or undefined when it is not one. */
function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
}

/** A token endpoint's success reply (RFC 6749 §5.1), checked for shape. */
export function tokenReply(body: unknown, host: string): TokenResponse {
  const doc = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const bad = (what: string) =>
    new NetworkError(`the token endpoint of ${host} answered without ${what}`, 'OIDC.BAD_TOKEN_REPLY');
  if (typeof doc.access_token !== 'string' || doc.access_token === '') throw bad('an access_token');
  const optional = (key: string) => {
    const v = doc[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw bad(`a string ${key}`);
    return v;
  };
  let expiresIn: number | undefined;
  const raw = doc.expires_in;
  if (raw !== undefined && raw !== null) {
    expiresIn = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : typeof raw === 'number' ? raw : NaN;
    if (!Number.isFinite(expiresIn) || expiresIn < 0) throw bad('a valid expires_in');
  }
  const reply: { -readonly [K in keyof TokenResponse]: TokenResponse[K] } = { accessToken: doc.access_token };
  const refreshToken = optional('refresh_token');
  const idToken = optional('id_token');
  // RFC 9449 §5: only a DPoP-bound token is told apart (RFC 6749 §5.1 compares token_type without case).
  const tokenType = optional('token_type');
  if (tokenType !== undefined && /^dpop$/i.test(tokenType)) reply.tokenType = 'DPoP';
  if (refreshToken !== undefined) reply.refreshToken = refreshToken;
  if (expiresIn !== undefined) reply.expiresIn = Math.floor(expiresIn);
  if (idToken !== undefined) reply.idToken = idToken;
  return reply;
}

/**
 * A pushed authorization request endpoint's success reply (RFC 9126 §2.2), checked for
 * shape: a non-empty `request_uri` of printable ASCII (it goes into the URL the browser
 * opens) and a positive `expires_in`.
 */
export function pushedAuthorizationReply(body: unknown, host: string): PushedAuthorization {
  const doc = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<
    string,
    unknown
  >;
  const bad = (what: string) =>
    new NetworkError(
      `the pushed authorization request endpoint of ${host} answered without ${what}`,
      'OIDC.BAD_PAR_REPLY',
    );
  const uri = doc.request_uri;
  if (typeof uri !== 'string' || !/^[\x21-\x7e]{1,2048}$/.test(uri)) throw bad('a usable request_uri');
  const expiresIn = doc.expires_in;
  if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn < 1) throw bad('a positive expires_in');
  return { requestUri: uri, expiresIn: Math.floor(expiresIn) };
}

/**
 * The OpenID provider over HTTP: discovery, the token endpoint (authorization code,
 * refresh, client credentials and token exchange grants) and RFC 7009 revocation.
 */
export class OidcIdentityProvider implements IdentityProvider {
  constructor(private readonly http: HttpClient) {}

  async discover(issuerUrl: string, timeoutMs?: number): Promise<ProviderMetadata> {
    const url = `${issuerUrl.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const host = hostOf(url);
    const reply = await this.http.send({ method: 'GET', url, headers: { Accept: 'application/json' }, timeoutMs });
    if (!ok(reply.status)) {
      throw new NetworkError(
        `the identity provider at ${host} answered discovery with HTTP ${reply.status}: check the domain`,
        'OIDC.DISCOVERY_STATUS',
      );
    }
    const doc = parseJsonReply(reply, url, 'the discovery request');
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
      throw new NetworkError(`the discovery document of ${host} is not a JSON object`, 'OIDC.BAD_DISCOVERY');
    }
    const fields = doc as Record<string, unknown>;
    const metadata: { -readonly [K in keyof ProviderMetadata]: ProviderMetadata[K] } = {
      // Discovery 1.0 §3 requires `issuer`; without one, the URL asked is the issuer (§4.3 makes them equal).
      issuer: typeof fields.issuer === 'string' && fields.issuer !== '' ? fields.issuer : issuerUrl.replace(/\/+$/, ''),
      authorizationEndpoint: endpoint(fields, 'authorization_endpoint', host, true) as string,
      tokenEndpoint: endpoint(fields, 'token_endpoint', host, true) as string,
    };
    const revocation = endpoint(fields, 'revocation_endpoint', host, false);
    if (revocation !== undefined) metadata.revocationEndpoint = revocation;
    const jwks = endpoint(fields, 'jwks_uri', host, false);
    if (jwks !== undefined) metadata.jwksUri = jwks;
    const device = endpoint(fields, 'device_authorization_endpoint', host, false);
    if (device !== undefined) metadata.deviceAuthorizationEndpoint = device;
    const grants = stringList(fields.grant_types_supported);
    if (grants !== undefined) metadata.grantTypesSupported = grants;
    const methods = stringList(fields.token_endpoint_auth_methods_supported);
    if (methods !== undefined) metadata.tokenEndpointAuthMethodsSupported = methods;
    // RFC 9207 §3, RFC 9126 §5: booleans only when they are booleans (a string "true" promises nothing).
    if (fields.authorization_response_iss_parameter_supported === true)
      metadata.authorizationResponseIssParameterSupported = true;
    const par = endpoint(fields, 'pushed_authorization_request_endpoint', host, false);
    if (par !== undefined) metadata.pushedAuthorizationRequestEndpoint = par;
    if (fields.require_pushed_authorization_requests === true) metadata.requirePushedAuthorizationRequests = true;
    const dpop = stringList(fields.dpop_signing_alg_values_supported);
    if (dpop !== undefined) metadata.dpopSigningAlgValuesSupported = dpop;
    return metadata;
  }

  exchangeCode(tokenEndpoint: string, request: CodeExchange, dpop?: DpopProver): Promise<TokenResponse> {
    const body: Array<[string, string]> = [
      ['grant_type', 'authorization_code'],
      ['code', request.code],
      ['redirect_uri', request.redirectUri],
      ['client_id', request.clientId],
      ['code_verifier', request.codeVerifier],
    ];
    return this.tokenRequest(
      tokenEndpoint,
      body,
      'the code exchange',
      [request.code, request.codeVerifier],
      FORM,
      dpop,
    );
  }

  refresh(tokenEndpoint: string, refreshToken: string, clientId: string, dpop?: DpopProver): Promise<TokenResponse> {
    const body: Array<[string, string]> = [
      ['grant_type', 'refresh_token'],
      ['refresh_token', refreshToken],
      ['client_id', clientId],
    ];
    return this.tokenRequest(tokenEndpoint, body, 'the token refresh', [refreshToken], FORM, dpop);
  }

  clientCredentials(tokenEndpoint: string, request: ClientCredentialsRequest): Promise<TokenResponse> {
    const body: Array<[string, string]> = [['grant_type', 'client_credentials']];
    if (request.scope !== undefined) body.push(['scope', request.scope]);
    let headers: Record<string, string> = FORM;
    if (request.authMethod === 'client_secret_basic') {
      // RFC 6749 §2.3.1: both form-encoded before they are joined and base64-encoded.
      const pair = `${formEncode([['', request.clientId]]).slice(1)}:${formEncode([['', request.clientSecret]]).slice(1)}`;
      headers = { ...FORM, Authorization: `Basic ${Buffer.from(pair, 'utf8').toString('base64')}` };
    } else {
      body.push(['client_id', request.clientId], ['client_secret', request.clientSecret]);
    }
    return this.tokenRequest(tokenEndpoint, body, 'the client credentials grant', [request.clientSecret], headers);
  }

  tokenExchange(tokenEndpoint: string, request: TokenExchangeRequest): Promise<TokenResponse> {
    // RFC 8693 §2.1; a public client names itself with client_id (RFC 6749 §3.2.1).
    const body: Array<[string, string]> = [
      ['grant_type', TOKEN_EXCHANGE_GRANT],
      ['client_id', request.clientId],
      ['subject_token', request.subjectToken],
      ['subject_token_type', request.subjectTokenType],
      ['requested_token_type', ACCESS_TOKEN_TYPE],
    ];
    return this.tokenRequest(tokenEndpoint, body, 'the token exchange', [request.subjectToken]);
  }

  async pushAuthorizationRequest(
    endpoint: string,
    parameters: ReadonlyArray<readonly [string, string]>,
  ): Promise<PushedAuthorization> {
    const host = hostOf(endpoint);
    const reply = await this.http.send({ method: 'POST', url: endpoint, headers: FORM, body: formEncode(parameters) });
    if (!ok(reply.status)) {
      // The state and nonce are this sign-in's secrets: a provider echoing them back gets them redacted.
      const secrets = parameters.filter(([k]) => k === 'state' || k === 'nonce').map(([, v]) => v);
      const body = oneLine(redact(reply.body, secrets));
      throw new IdentityError(
        `the identity provider at ${host} refused the pushed authorization request: HTTP ${reply.status}${body ? `: ${body}` : ''}`,
        'OIDC.PAR_STATUS',
      );
    }
    return pushedAuthorizationReply(parseJsonReply(reply, endpoint, 'the pushed authorization request'), host);
  }

  async revoke(revocationEndpoint: string, refreshToken: string, clientId: string, timeoutMs: number): Promise<void> {
    const body = formEncode([
      ['token', refreshToken],
      ['token_type_hint', 'refresh_token'],
      ['client_id', clientId],
    ]);
    const reply = await this.http.send({ method: 'POST', url: revocationEndpoint, headers: FORM, body, timeoutMs });
    if (!ok(reply.status)) {
      throw new NetworkError(
        `${hostOf(revocationEndpoint)} answered the revocation with HTTP ${reply.status}`,
        'OIDC.REVOKE_STATUS',
      );
    }
  }

  private async tokenRequest(
    url: string,
    fields: Array<[string, string]>,
    what: string,
    secrets: string[],
    headers: Record<string, string> = FORM,
    dpop?: DpopProver,
  ): Promise<TokenResponse> {
    const host = hostOf(url);
    const send = async (nonce?: string) =>
      this.http.send({
        method: 'POST',
        url,
        headers: dpop === undefined ? headers : { ...headers, DPoP: await dpop('POST', url, nonce) },
        body: formEncode(fields),
      });
    let reply = await send();
    // RFC 9449 §8: a server that wants a nonce refuses with use_dpop_nonce and names one; asked once again with it.
    const nonce = dpop === undefined ? undefined : nonceAsked(reply);
    if (nonce !== undefined) reply = await send(nonce);
    if (!ok(reply.status)) {
      const body = oneLine(redact(reply.body, secrets));
      throw new IdentityError(
        `the identity provider at ${host} refused ${what}: HTTP ${reply.status}${body ? `: ${body}` : ''}`,
        'OIDC.TOKEN_STATUS',
      );
    }
    return tokenReply(parseJsonReply(reply, url, `${what}`), host);
  }
}

/** The `DPoP-Nonce` of a `use_dpop_nonce` refusal (RFC 9449 §8), when it is a well-formed one. */
export function nonceAsked(reply: HttpReply): string | undefined {
  if (reply.status !== 400 && reply.status !== 401) return undefined;
  const nonce = dpopNonce(reply.headers?.['dpop-nonce']);
  if (nonce === undefined) return undefined;
  try {
    return (JSON.parse(reply.body) as { error?: unknown }).error === 'use_dpop_nonce' ? nonce : undefined;
  } catch {
    return undefined;
  }
}

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
