import { expiryOf, TokenResponse } from './token-response';

/** A token counts as valid only while more than 60 seconds remain (docs/login-contract.md, "Sign-in states"). */
export const FRESHNESS_MARGIN_MS = 60_000;

/** valid: more than 60 s left; expiring: 60 s or less left; expired: past its expiry. */
export type Freshness = 'valid' | 'expiring' | 'expired';

/**
 * How a record was first obtained: the browser (authorization code + PKCE), the device
 * grant, or the client credentials grant of a robot (obtained again the same way on expiry).
 */
export type SignInKind = 'browser' | 'device' | 'client-credentials';

export const SIGN_IN_KINDS: readonly SignInKind[] = ['browser', 'device', 'client-credentials'];

/** A robot's client: its id, and the file its secret is read from (absent: the environment's SKIFF_CLIENT_SECRET). */
export interface RobotClient {
  readonly clientId: string;
  readonly clientSecretFile?: string;
}

/** What a sign-in asked for, kept in the record it writes. */
export interface SignInOrigin {
  readonly signIn: SignInKind;
  /** The scope requested, kept when the reply does not name the granted one. */
  readonly requestedScope: string;
}

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
  /** The granted scope, space-separated; absent in records written before skiff kept it. */
  readonly scope?: string;
  /** How the record was obtained; absent in records written before skiff kept it. */
  readonly signIn?: SignInKind;
  /** client-credentials only: the client id. */
  readonly clientId?: string;
  /** client-credentials only: the path of the secret's file (never the secret). */
  readonly clientSecretFile?: string;
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
    const { idToken, giteaToken, scope, signIn, clientId, clientSecretFile, ...required } = fields;
    Object.assign(this, required, { expiresAt: new Date(fields.expiresAt.getTime()) });
    if (idToken !== undefined) Object.assign(this, { idToken });
    if (giteaToken !== undefined) Object.assign(this, { giteaToken });
    if (scope !== undefined) Object.assign(this, { scope });
    if (signIn !== undefined) Object.assign(this, { signIn });
    if (clientId !== undefined) Object.assign(this, { clientId });
    if (clientSecretFile !== undefined) Object.assign(this, { clientSecretFile });
    Object.freeze(this);
  }

  /**
   * SSO step 12: the record of a completed SSO login (`gitea_token` absent), with the
   * granted scope (the reply's, else the one requested: RFC 6749 §5.1) and the kind of sign-in.
   */
  static fromLogin(reply: TokenResponse, domain: string, now: Date, origin: SignInOrigin): AuthTokens {
    return new AuthTokens({
      accessToken: reply.accessToken,
      refreshToken: reply.refreshToken ?? '',
      expiresAt: expiryOf(reply, now),
      idToken: reply.idToken,
      domain,
      scope: reply.scope ?? origin.requestedScope,
      signIn: origin.signIn,
    });
  }

  /**
   * A robot's record (the client credentials grant, RFC 6749 §4.4): no refresh token and
   * no id_token are kept; the client id and the secret's file are, to obtain it again.
   */
  static fromClientCredentials(
    reply: TokenResponse,
    domain: string,
    now: Date,
    client: RobotClient & { readonly requestedScope?: string },
  ): AuthTokens {
    return new AuthTokens({
      accessToken: reply.accessToken,
      refreshToken: '',
      expiresAt: expiryOf(reply, now),
      domain,
      scope: reply.scope ?? client.requestedScope,
      signIn: 'client-credentials',
      clientId: client.clientId,
      clientSecretFile: client.clientSecretFile,
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

  /** The granted scopes, in order, without repeats; undefined when the record does not know them. */
  scopes(): string[] | undefined {
    if (this.scope === undefined) return undefined;
    return [...new Set(this.scope.split(' ').filter((word) => word !== ''))];
  }

  canRefresh(): boolean {
    return this.refreshToken !== '';
  }

  /** A new token can be obtained without a person: with the refresh token, or a robot's client credentials. */
  renewable(): boolean {
    return this.canRefresh() || this.robotClient() !== undefined;
  }

  /** A robot's record: its token is obtained again with the client credentials grant. */
  robotClient(): RobotClient | undefined {
    if (this.signIn !== 'client-credentials' || this.clientId === undefined) return undefined;
    return this.clientSecretFile === undefined
      ? { clientId: this.clientId }
      : { clientId: this.clientId, clientSecretFile: this.clientSecretFile };
  }

  /** A robot's token obtained again: new access token, expiry and scope (when named); the rest kept. */
  withObtainedAgain(reply: TokenResponse, now: Date): AuthTokens {
    return new AuthTokens({
      ...this.fields(),
      accessToken: reply.accessToken,
      scope: reply.scope ?? this.scope,
      expiresAt: expiryOf(reply, now),
    });
  }

  /**
   * The refresh merge rule: new access token and expiry; refresh and id tokens and the
   * scope from the reply, else the old ones; domain, git token and sign-in kind kept.
   */
  withRefreshed(reply: TokenResponse, now: Date): AuthTokens {
    return new AuthTokens({
      ...this.fields(),
      accessToken: reply.accessToken,
      refreshToken: reply.refreshToken ?? this.refreshToken,
      idToken: reply.idToken ?? this.idToken,
      scope: reply.scope ?? this.scope,
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
