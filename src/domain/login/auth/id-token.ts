import { IdentityError } from '../../shared/errors';
import { fromBase64url, utf8Text } from './encoding';

/**
 * The `email` claim of a JWT id_token, read from its payload (the id_token was verified
 * when it was received, id-token-claims.ts; a cached one is only read). Fewer
 * than two dot-separated segments is an identity error; so is a payload that is not
 * base64url JSON. Returns undefined when the payload has no string `email`.
 */
export function emailClaim(idToken: string): string | undefined {
  const email = idTokenPayload(idToken).email;
  return typeof email === 'string' ? email : undefined;
}

/**
 * The payload of a JWT, decoded without verifying anything: an identity error when it
 * has fewer than two segments or its payload is not base64url JSON of an object.
 */
export function idTokenPayload(idToken: string): Record<string, unknown> {
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
  return payload as Record<string, unknown>;
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

/** The `sub` claim when it can be read, else undefined (a refresh keeps the subject). */
export function readableSubject(idToken: string | undefined): string | undefined {
  if (idToken === undefined) return undefined;
  try {
    const sub = idTokenPayload(idToken).sub;
    return typeof sub === 'string' ? sub : undefined;
  } catch {
    return undefined;
  }
}
