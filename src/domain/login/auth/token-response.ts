/** What a token endpoint answered (RFC 6749 §5.1), already checked for shape. */
export interface TokenResponse {
  readonly accessToken: string;
  /** Absent when the provider issued none. */
  readonly refreshToken?: string;
  /** Seconds; absent means the default lifetime. */
  readonly expiresIn?: number;
  readonly idToken?: string;
  /** `DPoP` when the reply's `token_type` says the token is DPoP-bound (RFC 9449 §5); absent for any other. */
  readonly tokenType?: 'DPoP';
}

/** 3600 seconds are used when `expires_in` is absent (SSO step 12). */
export const DEFAULT_TOKEN_LIFETIME_S = 3600;

/**
 * The latest expiry a record holds: the last second RFC 3339's four-digit years can write.
 * A provider's `expires_in` is any number: beyond this it would be no time at all (a
 * JavaScript Date ends at 8.64e15 ms) or a year the cache file cannot hold.
 */
export const LATEST_EXPIRY = new Date(Date.UTC(9999, 11, 31, 23, 59, 59));

/** The absolute expiry of a reply received at `now`, at most LATEST_EXPIRY. */
export function expiryOf(reply: TokenResponse, now: Date): Date {
  const at = now.getTime() + (reply.expiresIn ?? DEFAULT_TOKEN_LIFETIME_S) * 1000;
  return new Date(Number.isFinite(at) ? Math.min(at, LATEST_EXPIRY.getTime()) : LATEST_EXPIRY.getTime());
}
