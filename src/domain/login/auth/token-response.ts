/** What a token endpoint answered (seed: TokenResponse), already checked for shape. */
export interface TokenResponse {
  readonly accessToken: string;
  /** Absent when the provider issued none. */
  readonly refreshToken?: string;
  /** Seconds; absent means the default lifetime. */
  readonly expiresIn?: number;
  readonly idToken?: string;
}

/** Seed: 3600 seconds are used when `expires_in` is absent. */
export const DEFAULT_TOKEN_LIFETIME_S = 3600;

/** The absolute expiry of a reply received at `now`. */
export function expiryOf(reply: TokenResponse, now: Date): Date {
  return new Date(now.getTime() + (reply.expiresIn ?? DEFAULT_TOKEN_LIFETIME_S) * 1000);
}
