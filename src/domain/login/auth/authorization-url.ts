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
  return `${request.authorizationEndpoint}?${params.map(([k, v]) => `${k}=${percentEncode(v)}`).join('&')}`;
}

/** SSO step 5 (RFC 8252 §7.3): the redirect URI names `localhost`, while the listener binds 127.0.0.1. */
export function redirectUriFor(port: number): string {
  return `http://localhost:${port}/callback`;
}
