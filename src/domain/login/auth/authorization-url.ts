import { ConfigurationError } from '../../shared/errors';
import { escapedControls } from '../../shared/quoted';
import { CHALLENGE_METHOD } from './pkce';
import { percentEncode } from './percent-encoding';

/** The OAuth 2.0 client identifier: a public client, no secret (RFC 6749 §2.1). */
export const CLIENT_ID = 'skiff-cli';
/** Scopes asked for, space-separated (sent percent-encoded). */
export const SCOPE = 'openid email profile offline_access';

export interface AuthorizationRequest {
  readonly authorizationEndpoint: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly state: string;
  /** OpenID Connect Core §3.1.2.1: echoed in the id_token, which is refused without it. */
  readonly nonce?: string;
}

/**
 * SSO step 6 (docs/login-contract.md; RFC 6749 §4.1.1, RFC 7636 §4.3): the endpoint,
 * '?', then exactly client_id, redirect_uri, response_type=code, scope,
 * code_challenge, code_challenge_method=S256, state, then nonce when given. Every value goes through
 * percentEncode (the challenge and state are base64url, which it leaves as they are).
 */
export function authorizationUrl(request: AuthorizationRequest): string {
  return `${request.authorizationEndpoint}?${query(authorizationParameters(request))}`;
}

/** The parameters of step 6 in their order, as sent in the URL or pushed (RFC 9126 §2.1). */
export function authorizationParameters(request: AuthorizationRequest): Array<[string, string]> {
  const params: Array<[string, string]> = [
    ['client_id', CLIENT_ID],
    ['redirect_uri', request.redirectUri],
    ['response_type', 'code'],
    ['scope', SCOPE],
    ['code_challenge', request.codeChallenge],
    ['code_challenge_method', CHALLENGE_METHOD],
    ['state', request.state],
  ];
  if (request.nonce !== undefined) params.push(['nonce', request.nonce]);
  return params;
}

function query(params: ReadonlyArray<readonly [string, string]>): string {
  return params.map(([k, v]) => `${k}=${percentEncode(v)}`).join('&');
}

/**
 * RFC 9126 §4 (docs/login-contract.md, "Pushed authorization requests"): after the
 * parameters were pushed, the browser gets the authorization endpoint with `client_id`
 * and the `request_uri` the provider answered, and nothing else.
 */
export function pushedAuthorizationUrl(authorizationEndpoint: string, requestUri: string): string {
  return `${authorizationEndpoint}?${query([
    ['client_id', CLIENT_ID],
    ['request_uri', requestUri],
  ])}`;
}

/**
 * RFC 9126 §5: where to push the authorization request, or undefined to send it in the URL
 * as step 6 says. Pushed when the provider requires it or the context asks (`config set
 * --par`); either without a `pushed_authorization_request_endpoint` in discovery is a
 * configuration error, since the sign-in cannot be made as asked.
 */
export function pushEndpoint(
  metadata: {
    readonly pushedAuthorizationRequestEndpoint?: string;
    readonly requirePushedAuthorizationRequests?: boolean;
  },
  contextAsks: boolean,
  host: string,
): string | undefined {
  const required = metadata.requirePushedAuthorizationRequests === true;
  if (!required && !contextAsks) return undefined;
  if (metadata.pushedAuthorizationRequestEndpoint !== undefined) return metadata.pushedAuthorizationRequestEndpoint;
  throw new ConfigurationError(
    required
      ? `the identity provider at ${escapedControls(host)} requires pushed authorization requests but names no pushed_authorization_request_endpoint: ask its administrator`
      : `the identity provider at ${escapedControls(host)} takes no pushed authorization requests (no pushed_authorization_request_endpoint): \`skiff config set --no-par\` signs in without them`,
    'AUTH.NO_PAR_ENDPOINT',
  );
}

/** SSO step 5 (RFC 8252 §7.3): the redirect URI names `localhost`, while the listener binds 127.0.0.1. */
export function redirectUriFor(port: number): string {
  return `http://localhost:${port}/callback`;
}
