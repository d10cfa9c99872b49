import { expiryOf, TokenResponse } from './token-response';

/** A token counts as valid only while more than 60 seconds remain (docs/login-contract.md, "Sign-in states"). */
export const FRESHNESS_MARGIN_MS = 60_000;

/** valid: more than 60 s left; expiring: 60 s or less left; expired: past its expiry. */
export type Freshness = 'valid' | 'expiring' | 'expired';

/** The fields of the cached record (docs/login-contract.md, "Files"). */
export interface AuthTokenFields {
  readonly accessToken: string;
  /** '' when the provider issued none. */
  readonly refreshToken: string;
  readonly expiresAt: Date;
  readonly idToken?: string;
  readonly domain: string;
  /** The git host's personal access token. */
  readonly giteaToken?: string;
}

/** The fields, read-only, on every record (declaration merging with the class below). */
// The merge is the point: the class's fields typed once, by the interface.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface AuthTokens extends Readonly<AuthTokenFields> {}

/**
 * The cached token record of one domain: an immutable value. Its freshness is
 * computed from the time given, never stored.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class AuthTokens {
  constructor(fields: AuthTokenFields) {
    const { idToken, giteaToken, ...required } = fields;
    Object.assign(this, required, { expiresAt: new Date(fields.expiresAt.getTime()) });
    if (idToken !== undefined) Object.assign(this, { idToken });
    if (giteaToken !== undefined) Object.assign(this, { giteaToken });
    Object.freeze(this);
  }

  /** SSO step 12: the record of a completed SSO login (`gitea_token` absent). */
  static fromLogin(reply: TokenResponse, domain: string, now: Date): AuthTokens {
    return new AuthTokens({
      accessToken: reply.accessToken,
      refreshToken: reply.refreshToken ?? '',
      expiresAt: expiryOf(reply, now),
      idToken: reply.idToken,
      domain,
    });
  }

  /** Git login step 4: the starting record when no cache exists yet. */
  static empty(domain: string, now: Date): AuthTokens {
    return new AuthTokens({ accessToken: '', refreshToken: '', expiresAt: now, domain });
  }

  freshness(now: Date): Freshness {
    const left = this.expiresAt.getTime() - now.getTime();
    if (left > FRESHNESS_MARGIN_MS) return 'valid';
    return left > 0 ? 'expiring' : 'expired';
  }

  /** Status output: expired when expires_at <= now (no margin). */
  isExpired(now: Date): boolean {
    return this.expiresAt.getTime() <= now.getTime();
  }

  canRefresh(): boolean {
    return this.refreshToken !== '';
  }

  /**
   * The refresh merge rule: new access token and expiry; refresh and id tokens from
   * the reply, else the old ones; domain and git token kept.
   */
  withRefreshed(reply: TokenResponse, now: Date): AuthTokens {
    return new AuthTokens({
      ...this.fields(),
      accessToken: reply.accessToken,
      refreshToken: reply.refreshToken ?? this.refreshToken,
      idToken: reply.idToken ?? this.idToken,
      expiresAt: expiryOf(reply, now),
    });
  }

  /** Git login step 4: the git token set, the domain filled in when it was empty. */
  withGiteaToken(token: string, domain: string): AuthTokens {
    return new AuthTokens({ ...this.fields(), giteaToken: token, domain: this.domain === '' ? domain : this.domain });
  }

  private fields(): AuthTokenFields {
    return { ...this };
  }
}
