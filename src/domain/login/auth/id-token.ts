import { IdentityError } from '../../shared/errors';
import { fromBase64url, utf8Text } from './encoding';

/**
 * The `email` claim of a JWT id_token, read from its payload without verifying the
 * signature (it is shown, never trusted: SSO step 13 of docs/login-contract.md). Fewer
 * than two dot-separated segments is an identity error; so is a payload that is not
 * base64url JSON. Returns undefined when the payload has no string `email`.
 */
export function emailClaim(idToken: string): string | undefined {
  const segments = idToken.split('.');
  if (segments.length < 2) {
    throw new IdentityError('the id_token is not a JWT (fewer than two segments)', 'AUTH.ID_TOKEN_MALFORMED');
  }
  const bytes = fromBase64url(segments[1]);
  const text = bytes === undefined ? undefined : utf8Text(bytes);
  let payload: unknown;
  try {
    payload = text === undefined ? undefined : JSON.parse(text);
  } catch {
    payload = undefined;
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw new IdentityError('the id_token payload is not a JSON object', 'AUTH.ID_TOKEN_MALFORMED');
  }
  const email = (payload as Record<string, unknown>).email;
  return typeof email === 'string' ? email : undefined;
}

/** The e-mail when it can be read, else undefined (status and login messages). */
export function readableEmail(idToken: string | undefined): string | undefined {
  if (idToken === undefined) return undefined;
  try {
    return emailClaim(idToken);
  } catch {
    return undefined;
  }
}
