import { UsageError } from '../../shared/errors';
import { base64url, utf8Bytes } from './encoding';

/**
 * DPoP, RFC 9449 (docs/login-contract.md, "DPoP"): the proof's header and claims, the key's
 * thumbprint, the access token hash, the server's nonce, and when a sign-in binds its tokens.
 * Pure: the signature, the key, the time, the random `jti` and SHA-256 come in from ports.
 */

/** The one algorithm skiff signs proofs with (P-256, RFC 7518 §3.4). */
export const DPOP_ALG = 'ES256';
/** Random bytes of a proof's `jti` (RFC 9449 §4.2: enough that it is never repeated). */
export const JTI_BYTES = 16;

/** The public half of a P-256 key as a JWK (RFC 7517, RFC 7518 §6.2.1): no private member, ever. */
export interface PublicEcJwk {
  readonly kty: 'EC';
  readonly crv: 'P-256';
  readonly x: string;
  readonly y: string;
}

export interface ProofClaims {
  readonly jwk: PublicEcJwk;
  readonly jti: string;
  /** The HTTP method of the request (RFC 9110 §9), upper case as sent. */
  readonly htm: string;
  /** The request's URL without query and fragment (RFC 9449 §4.2). */
  readonly htu: string;
  /** Seconds since the epoch. */
  readonly iat: number;
  /** The server's last `DPoP-Nonce` (RFC 9449 §8, §9). */
  readonly nonce?: string;
  /** base64url(SHA-256(access token)), for a request to a resource (RFC 9449 §4.2). */
  readonly ath?: string;
}

/** The public members only, in a fixed order: what a proof's header and the thumbprint take. */
function publicMembers(jwk: PublicEcJwk): PublicEcJwk {
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
}

/** JWS signing input (RFC 7515 §5.1) of a proof: `base64url(header).base64url(claims)`. */
export function proofSigningInput(claims: ProofClaims): string {
  const header = { typ: 'dpop+jwt', alg: DPOP_ALG, jwk: publicMembers(claims.jwk) };
  const payload: Record<string, string | number> = {
    jti: claims.jti,
    htm: claims.htm,
    htu: claims.htu,
    iat: claims.iat,
  };
  if (claims.nonce !== undefined) payload.nonce = claims.nonce;
  if (claims.ath !== undefined) payload.ath = claims.ath;
  const part = (value: object) => base64url(utf8Bytes(JSON.stringify(value)));
  return `${part(header)}.${part(payload)}`;
}

/** RFC 9449 §4.2 `htu`: the target URI without its query and fragment. */
export function htuOf(url: string): string {
  const end = url.search(/[?#]/);
  return end < 0 ? url : url.slice(0, end);
}

/** RFC 7638 §3.2: the thumbprint's input, the required members of an EC key in lexicographic order. */
export function thumbprintInput(jwk: PublicEcJwk): Uint8Array {
  return utf8Bytes(`{"crv":"${jwk.crv}","kty":"${jwk.kty}","x":"${jwk.x}","y":"${jwk.y}"}`);
}

/** RFC 7638 thumbprint, base64url of SHA-256 (the `jkt` a provider binds tokens to, RFC 9449 §6). */
export function jwkThumbprint(jwk: PublicEcJwk, sha256: (bytes: Uint8Array) => Uint8Array): string {
  return base64url(sha256(thumbprintInput(jwk)));
}

/** RFC 9449 §4.2 `ath`: base64url of SHA-256 of the access token's ASCII bytes. */
export function accessTokenHash(accessToken: string, sha256: (bytes: Uint8Array) => Uint8Array): string {
  return base64url(sha256(utf8Bytes(accessToken)));
}

/**
 * A `DPoP-Nonce` header's value (RFC 9449 §8.1: `nonce = 1*NQCHAR`, printable ASCII but `"`
 * and `\`), at most 1024 characters; undefined for anything else, which is then not sent back.
 */
export function dpopNonce(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return /^[\x21\x23-\x5b\x5d-\x7e]{1,1024}$/.test(header) ? header : undefined;
}

/**
 * Whether a sign-in binds its tokens to a DPoP key: when the context asks (`config set
 * --dpop`). A provider that only lists `dpop_signing_alg_values_supported` accepts proofs
 * (RFC 9449 §5.1) but does not ask for them, and a bound token is refused as a bearer
 * token by every tool that cannot send a proof (kubectl's exec credential carries only a
 * token): docs/login-contract.md, "Decisions".
 */
export function bindsTokens(contextAsks: boolean): boolean {
  return contextAsks;
}

/** RFC 9110 §5.6.2: a method is a token. */
const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/;

/**
 * `auth token --dpop-proof --method M --url U`: the request a script wants a proof for,
 * judged before any file is read. The URL must be absolute http(s) with a host; its query and
 * fragment are dropped as `htu` says (RFC 9449 §4.2). Anything else is a usage error naming it.
 */
export function proofTarget(method: string, url: string): { readonly htm: string; readonly htu: string } {
  if (!METHOD.test(method))
    throw new UsageError(
      '--method must be an HTTP method such as GET or POST (for example: skiff auth token --dpop-proof --method GET --url https://api.example.com/)',
      'CLI.BAD_DPOP_METHOD',
    );
  const match = /^(https?):\/\/([^/?#\s]+)([^\s]*)$/i.exec(url);
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (match === null || /[\u0000-\u001f\u007f]/.test(url))
    throw new UsageError(
      '--url must be an absolute http or https URL (for example: skiff auth token --dpop-proof --method GET --url https://api.example.com/)',
      'CLI.BAD_DPOP_URL',
    );
  return { htm: method, htu: htuOf(url) };
}
