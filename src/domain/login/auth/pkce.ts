import { InvalidArgumentError } from '../../shared/errors';
import { asciiBytes, base64url } from './encoding';

/** Random bytes behind a PKCE verifier (32 bytes -> 43 characters, RFC 7636 §4.1). */
export const VERIFIER_BYTES = 32;
/** Random bytes behind the `state` parameter (16 bytes -> 22 characters, SSO step 4). */
export const STATE_BYTES = 16;
export const CHALLENGE_METHOD = 'S256';

/** SHA-256 as a function of bytes: the hashing itself lives behind a port. */
export type Sha256 = (bytes: Uint8Array) => Uint8Array;

export interface Pkce {
  readonly verifier: string;
  readonly challenge: string;
  readonly method: typeof CHALLENGE_METHOD;
}

function requireLength(bytes: Uint8Array, length: number, what: string): void {
  if (bytes.length !== length) {
    throw new InvalidArgumentError(`${what} needs ${length} random bytes, got ${bytes.length}`, 'AUTH.RANDOM_LENGTH');
  }
}

/** RFC 7636 §4.2 S256: base64url(SHA-256(ASCII(verifier))) without padding. */
export function challengeFor(verifier: string, sha256: Sha256): string {
  return base64url(sha256(asciiBytes(verifier)));
}

/** A verifier from 32 random bytes and its S256 challenge (both 43 characters). */
export function derivePkce(random: Uint8Array, sha256: Sha256): Pkce {
  requireLength(random, VERIFIER_BYTES, 'a PKCE verifier');
  const verifier = base64url(random);
  return { verifier, challenge: challengeFor(verifier, sha256), method: CHALLENGE_METHOD };
}

/** The `state` parameter from 16 random bytes (22 characters). */
export function deriveState(random: Uint8Array): string {
  requireLength(random, STATE_BYTES, 'the state parameter');
  return base64url(random);
}
