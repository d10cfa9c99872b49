import { AuthTokens, SignInKind } from './auth-tokens';
import { TokenStore } from './token-store';

/** `auth token --json`: the token with what a script needs to know about it. */
export interface TokenDetails {
  readonly token: string;
  /** RFC 3339 UTC. */
  readonly expiresAt: string;
  /** The scopes skiff asks for in a person's sign-in; null for a robot (none known). */
  readonly scopes: string[] | null;
  /** `person`, or `client-credentials`/`token-exchange` for a robot: derived from the record, never stored. */
  readonly signIn: SignInKind;
  readonly tokenStore: TokenStore;
}

export function tokenDetails(tokens: AuthTokens, store: TokenStore): TokenDetails {
  return {
    token: tokens.accessToken,
    expiresAt: tokens.expiresAt.toISOString(),
    scopes: tokens.scopes() ?? null,
    signIn: tokens.signInKind(),
    tokenStore: { kind: store.kind, path: store.path },
  };
}
