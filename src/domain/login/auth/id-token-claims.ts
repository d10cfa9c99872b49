import { IdentityError, InvalidArgumentError } from '../../shared/errors';
import { LOGIN_COMMAND } from './auth-errors';
import { base64url } from './encoding';

/**
 * The rules an id_token received from the provider must pass before anything is
 * stored (OpenID Connect Core 1.0 §3.1.3.7, §12.2; docs/login-contract.md, "Verified
 * id_tokens"). The signature is checked by the IdTokenVerifier port against the
 * provider's JWKS; the claims are judged here, by the same function for every
 * verifier.
 */

/** Clock skew allowed on `exp`, `iat` and `nbf`, in seconds. */
export const ID_TOKEN_LEEWAY_S = 60;
/** Random bytes behind the code flow's `nonce` (16 bytes -> 22 characters). */
export const NONCE_BYTES = 16;
/**
 * The signature algorithms accepted: asymmetric only. `none` is never accepted, and
 * an HMAC (HS*) would need a client secret a public client does not have (§10.1).
 */
export const ID_TOKEN_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

/** What the id_token must say. */
export interface IdTokenExpectations {
  /** The discovered issuer: `iss` must equal it exactly. */
  readonly issuer: string;
  /** `aud` must contain it (and `azp`, when present, equal it). */
  readonly clientId: string;
  /** The time of receipt. */
  readonly now: Date;
  /** The code flow's nonce: the id_token must carry exactly this one. Absent for the device flow and refreshes. */
  readonly nonce?: string;
  /** A refresh's id_token must name the subject of the one it replaces (§12.2). */
  readonly subject?: string;
}

/** The claims skiff uses from a verified id_token. */
export interface IdTokenClaims {
  readonly subject: string;
  readonly email?: string;
}

/** An id_token that failed verification: what failed, and that nothing was kept. */
export function idTokenRefused(reason: string): IdentityError {
  return new IdentityError(
    `the id_token from the identity provider was refused: ${reason}; nothing was stored: run \`${LOGIN_COMMAND}\` again or ask the provider's administrator`,
    'AUTH.ID_TOKEN_REFUSED',
  );
}

const keyName = (kid: unknown) => (typeof kid === 'string' ? `key id ${JSON.stringify(kid)}` : 'no key id');

/** Signed with a key the provider's JWK Set does not hold, even fetched again. */
export function keyNotPublished(kid: unknown): IdentityError {
  return idTokenRefused(`bad signature: it is signed with a key that is not in the provider's JWKS (${keyName(kid)})`);
}

/** The provider's key of that id does not verify the signature. */
export function signatureMismatch(kid: unknown): IdentityError {
  return idTokenRefused(`bad signature: it does not verify with the provider's key (${keyName(kid)})`);
}

/** The nonce of the authorization request, from 16 random bytes (22 characters). */
export function deriveNonce(random: Uint8Array): string {
  if (random.length !== NONCE_BYTES) {
    throw new InvalidArgumentError(
      `a nonce needs ${NONCE_BYTES} random bytes, got ${random.length}`,
      'AUTH.RANDOM_LENGTH',
    );
  }
  return base64url(random);
}

const quoted = (value: unknown) => JSON.stringify(value);
const iso = (seconds: number) => {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? String(seconds) : date.toISOString();
};

/** An algorithm skiff accepts, else the refusal naming it. */
export function judgeAlgorithm(alg: unknown): void {
  if (typeof alg !== 'string' || !ID_TOKEN_ALGORITHMS.includes(alg)) {
    throw idTokenRefused(`bad signature: algorithm ${quoted(alg)} is not accepted (${ID_TOKEN_ALGORITHMS.join(', ')})`);
  }
}

/**
 * Judges the payload of an id_token whose signature verified: an object with `iss`,
 * `sub`, `aud`, `exp` and `iat` (§2), `iss` the discovered issuer, `aud` containing
 * the client id (`azp` the client id when present), not expired and not issued or
 * valid only in the future beyond the leeway, the nonce sent (code flow), the same
 * subject as before (refresh). Throws idTokenRefused naming the first rule broken.
 */
export function judgeIdTokenClaims(payload: unknown, expect: IdTokenExpectations): IdTokenClaims {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw idTokenRefused('malformed: its payload is not a JSON object');
  }
  const claims = payload as Record<string, unknown>;
  if (claims.iss !== expect.issuer) {
    throw idTokenRefused(`wrong issuer: ${quoted(claims.iss)}, expected ${quoted(expect.issuer)}`);
  }
  const aud = claims.aud;
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  if (!audiences.includes(expect.clientId)) {
    throw idTokenRefused(`wrong audience: ${quoted(aud)} does not contain ${quoted(expect.clientId)}`);
  }
  if (claims.azp !== undefined && claims.azp !== expect.clientId) {
    throw idTokenRefused(
      `wrong audience: the authorized party (azp) is ${quoted(claims.azp)}, not ${quoted(expect.clientId)}`,
    );
  }
  if (typeof claims.sub !== 'string' || claims.sub === '') throw idTokenRefused('malformed: it has no subject (sub)');
  const now = expect.now.getTime() / 1000;
  const time = (name: string): number | undefined => {
    const value = claims[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw idTokenRefused(`malformed: ${name} is not a number`);
    return value;
  };
  const exp = time('exp');
  const iat = time('iat');
  const nbf = time('nbf');
  if (exp === undefined) throw idTokenRefused('malformed: it has no expiry (exp)');
  if (iat === undefined) throw idTokenRefused('malformed: it has no issue time (iat)');
  if (now > exp + ID_TOKEN_LEEWAY_S) {
    throw idTokenRefused(
      `expired at ${iso(exp)} (now ${iso(now)}, ${ID_TOKEN_LEEWAY_S} s leeway): check this machine's clock`,
    );
  }
  if (iat > now + ID_TOKEN_LEEWAY_S) {
    throw idTokenRefused(
      `issued in the future, at ${iso(iat)} (now ${iso(now)}, ${ID_TOKEN_LEEWAY_S} s leeway): check this machine's clock`,
    );
  }
  if (nbf !== undefined && nbf > now + ID_TOKEN_LEEWAY_S) {
    throw idTokenRefused(`not valid before ${iso(nbf)} (now ${iso(now)}, ${ID_TOKEN_LEEWAY_S} s leeway)`);
  }
  if (expect.nonce !== undefined) {
    if (claims.nonce === undefined) throw idTokenRefused('nonce mismatch: it carries no nonce, one was sent');
    if (claims.nonce !== expect.nonce) {
      throw idTokenRefused('nonce mismatch: not the nonce of this sign-in (a replayed or injected id_token)');
    }
  }
  if (expect.subject !== undefined && claims.sub !== expect.subject) {
    throw idTokenRefused(`wrong subject: ${quoted(claims.sub)}, the session's is ${quoted(expect.subject)}`);
  }
  const result: { subject: string; email?: string } = { subject: claims.sub };
  if (typeof claims.email === 'string') result.email = claims.email;
  return result;
}
