/** What a token endpoint answered (RFC 6749 §5.1), already checked for shape. */
export interface TokenResponse {
  readonly accessToken: string;
  /** Absent when the provider issued none. */
  readonly refreshToken?: string;
  /** Seconds; absent means the default lifetime. */
  readonly expiresIn?: number;
  readonly idToken?: string;
  /** The granted scope, space-separated; absent when it is the one requested (RFC 6749 §5.1). */
  readonly scope?: string;
}

/** 3600 seconds are used when `expires_in` is absent (SSO step 12). */
export const DEFAULT_TOKEN_LIFETIME_S = 3600;

/** The absolute expiry of a reply received at `now`. */
export function expiryOf(reply: TokenResponse, now: Date): Date {
  return new Date(now.getTime() + (reply.expiresIn ?? DEFAULT_TOKEN_LIFETIME_S) * 1000);
}
