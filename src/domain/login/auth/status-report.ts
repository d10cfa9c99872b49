import { AuthTokens, SignInKind } from './auth-tokens';
import { readableEmail } from './id-token';
import { TokenStore } from './token-store';

/** The facts `auth status` prints, as text or as JSON (the same facts either way). */
export type StatusReport =
  | {
      readonly loggedIn: false;
      /** Why the cache could not be used, when a file exists but is unreadable. */
      readonly problem?: string;
    }
  | {
      readonly loggedIn: true;
      /** The id_token's e-mail claim, `client <id>` or `subject token <file>` for a robot, or 'unknown'. */
      readonly identity: string;
      /** expired when expires_at <= now. */
      readonly expired: boolean;
      /** RFC 3339 UTC. */
      readonly expiresAt: string;
      /** Expired and a refresh token is held: the next command refreshes it. */
      readonly refreshOnNextUse: boolean;
      readonly domain: string;
      readonly gitToken: boolean;
      /** The scopes skiff asks for in a person's sign-in; null for a robot (none known). */
      readonly scopes: string[] | null;
      /** `person`, or `client-credentials`/`token-exchange` for a robot: derived from the record, never stored. */
      readonly signIn: SignInKind;
      /** Where the record is kept (never its content). */
      readonly tokenStore: TokenStore;
    };

export function statusReport(
  tokens: AuthTokens | undefined,
  now: Date,
  store: TokenStore,
  problem?: string,
): StatusReport {
  if (tokens === undefined) return problem === undefined ? { loggedIn: false } : { loggedIn: false, problem };
  const expired = tokens.isExpired(now);
  return {
    loggedIn: true,
    identity: readableEmail(tokens.idToken) ?? robotIdentity(tokens) ?? 'unknown',
    expired,
    expiresAt: tokens.expiresAt.toISOString(),
    refreshOnNextUse: expired && tokens.renewable(),
    domain: tokens.domain,
    gitToken: tokens.giteaToken !== undefined,
    scopes: tokens.scopes() ?? null,
    signIn: tokens.signInKind(),
    tokenStore: { kind: store.kind, path: store.path },
  };
}

/**
 * Who a robot's record signs in: its client, or for a token exchange the subject token's
 * file (the provider decides whose token it is; skiff knows the file it came from).
 */
function robotIdentity(tokens: AuthTokens): string | undefined {
  if (tokens.subjectTokenFile !== undefined) return `subject token ${tokens.subjectTokenFile}`;
  return tokens.clientId === undefined ? undefined : `client ${tokens.clientId}`;
}

/** `YYYY-MM-DD HH:MM:SS UTC`. */
export function formatUtc(time: Date): string {
  return `${time.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
