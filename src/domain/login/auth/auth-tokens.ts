import { SCOPE } from './authorization-url';
import { ExchangeSubject } from './token-exchange';
import { expiryOf, TokenResponse } from './token-response';

/** A token counts as valid only while more than 60 seconds remain (docs/login-contract.md, "Sign-in states"). */
export const FRESHNESS_MARGIN_MS = 60_000;

/** valid: more than 60 s left; expiring: 60 s or less left; expired: past its expiry. */
export type Freshness = 'valid' | 'expiring' | 'expired';

/**
 * Who a record signs in, derived from the record (never stored): a person (the browser or
 * the device sign-in, and its git token), a robot's client credentials grant (the record
 * keeps a `client_id`), or a robot's token exchange (it keeps a `subject_token_file`).
 */
export type SignInKind = 'person' | 'client-credentials' | 'token-exchange';

/** A robot's client: its id, and the file its secret is read from (absent: the environment's SKIFF_CLIENT_SECRET). */
export interface RobotClient {
  readonly clientId: string;
  readonly clientSecretFile?: string;
}

/**
 * The fields of the cached record (docs/login-contract.md, "Files"): the specification's
 * six, and a robot's client (the one departure, to obtain its token again).
 */
export interface AuthTokenFields {
  readonly accessToken: string;
  /** '' when the provider issued none. */
  readonly refreshToken: string;
  readonly expiresAt: Date;
  readonly idToken?: string;
  readonly domain: string;
  /** The git host's personal access token. */
  readonly giteaToken?: string;
  /** client-credentials only: the client id. */
  readonly clientId?: string;
  /** client-credentials only: the path of the secret's file (never the secret). */
  readonly clientSecretFile?: string;
  /** token-exchange only: the subject token's file, absolute (never the token). */
  readonly subjectTokenFile?: string;
  /** token-exchange only: the subject token's type (RFC 8693 §3). */
  readonly subjectTokenType?: string;
  /** `DPoP` when the access token is bound to the domain's DPoP key (RFC 9449 §5); absent for a bearer token. */
  readonly tokenType?: 'DPoP';
}

/** RFC 9449 §5: a reply whose token_type is DPoP makes a DPoP-bound record. */
function boundType(reply: TokenResponse): 'DPoP' | undefined {
  return reply.tokenType === 'DPoP' ? 'DPoP' : undefined;
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
    const {
      idToken,
      giteaToken,
      clientId,
      clientSecretFile,
      subjectTokenFile,
      subjectTokenType,
      tokenType,
      ...required
    } = fields;
    Object.assign(this, required, { expiresAt: new Date(fields.expiresAt.getTime()) });
    // Absent optional fields stay absent (not undefined-valued keys): records compare and encode by their keys.
    const optional = { idToken, giteaToken, clientId, clientSecretFile, subjectTokenFile, subjectTokenType, tokenType };
    for (const [key, value] of Object.entries(optional)) if (value !== undefined) Object.assign(this, { [key]: value });
    Object.freeze(this);
  }

  /**
   * SSO step 12 (and the device sign-in): the record of a person's completed sign-in,
   * exactly the specification's fields (`gitea_token` absent).
   */
  static fromLogin(reply: TokenResponse, domain: string, now: Date): AuthTokens {
    return new AuthTokens({
      accessToken: reply.accessToken,
      refreshToken: reply.refreshToken ?? '',
      expiresAt: expiryOf(reply, now),
      idToken: reply.idToken,
      domain,
      tokenType: boundType(reply),
    });
  }

  /**
   * A robot's record (the client credentials grant, RFC 6749 §4.4): no refresh token and
   * no id_token are kept; the client id and the secret's file are, to obtain it again.
   */
  static fromClientCredentials(reply: TokenResponse, domain: string, now: Date, client: RobotClient): AuthTokens {
    return new AuthTokens({
      accessToken: reply.accessToken,
      refreshToken: '',
      expiresAt: expiryOf(reply, now),
      domain,
      clientId: client.clientId,
      clientSecretFile: client.clientSecretFile,
    });
  }

  /**
   * A robot's record from a token exchange (RFC 8693): like the client credentials grant's,
   * no refresh token and no id_token; the client and the subject token's file and type are
   * kept, to exchange again (the file re-read: CI systems rotate it).
   */
  static fromTokenExchange(reply: TokenResponse, domain: string, now: Date, subject: ExchangeSubject): AuthTokens {
    return new AuthTokens({
      accessToken: reply.accessToken,
      refreshToken: '',
      expiresAt: expiryOf(reply, now),
      domain,
      clientId: subject.clientId,
      subjectTokenFile: subject.subjectTokenFile,
      subjectTokenType: subject.subjectTokenType,
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

  /** A subject token's file makes a token exchange's record, a client id alone a client credentials one; else a person's. */
  signInKind(): SignInKind {
    if (this.subjectTokenFile !== undefined) return 'token-exchange';
    return this.clientId === undefined ? 'person' : 'client-credentials';
  }

  /**
   * The scopes skiff asks for in a person's sign-in (the browser and the device flows ask
   * for the same); undefined for a robot, whose grant asks for none that skiff knows.
   */
  scopes(): string[] | undefined {
    return this.signInKind() === 'person' ? SCOPE.split(' ') : undefined;
  }

  /** RFC 9449: the access token is bound to the domain's DPoP key: every request with it carries a proof. */
  dpopBound(): boolean {
    return this.tokenType === 'DPoP';
  }

  canRefresh(): boolean {
    return this.refreshToken !== '';
  }

  /** A new token can be obtained without a person: with the refresh token, or a robot's grant again. */
  renewable(): boolean {
    return this.canRefresh() || this.robotClient() !== undefined || this.exchangeSubject() !== undefined;
  }

  /** A client credentials record: its token is obtained again with that grant. */
  robotClient(): RobotClient | undefined {
    if (this.signInKind() !== 'client-credentials' || this.clientId === undefined) return undefined;
    return this.clientSecretFile === undefined
      ? { clientId: this.clientId }
      : { clientId: this.clientId, clientSecretFile: this.clientSecretFile };
  }

  /** A token exchange's record: its token is obtained by exchanging the subject token again. */
  exchangeSubject(): ExchangeSubject | undefined {
    if (this.subjectTokenFile === undefined || this.clientId === undefined || this.subjectTokenType === undefined)
      return undefined;
    return {
      clientId: this.clientId,
      subjectTokenFile: this.subjectTokenFile,
      subjectTokenType: this.subjectTokenType,
    };
  }

  /** A robot's token obtained again: new access token and expiry; the rest kept. */
  withObtainedAgain(reply: TokenResponse, now: Date): AuthTokens {
    return new AuthTokens({
      ...this.fields(),
      accessToken: reply.accessToken,
      expiresAt: expiryOf(reply, now),
    });
  }

  /**
   * The refresh merge rule: new access token and expiry; refresh and id tokens from the
   * reply, else the old ones; domain and git token kept.
   */
  withRefreshed(reply: TokenResponse, now: Date): AuthTokens {
    return new AuthTokens({
      ...this.fields(),
      accessToken: reply.accessToken,
      refreshToken: reply.refreshToken ?? this.refreshToken,
      idToken: reply.idToken ?? this.idToken,
      expiresAt: expiryOf(reply, now),
      tokenType: boundType(reply),
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
