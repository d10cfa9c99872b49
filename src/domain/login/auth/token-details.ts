import { AuthTokens, SignInKind } from './auth-tokens';
import { TokenStore } from './token-store';

/** `auth token --json`: the token with what a script needs to know about it. */
export interface TokenDetails {
  readonly token: string;
  /** RFC 3339 UTC. */
  readonly expiresAt: string;
  /** The granted scopes; null when the record predates skiff keeping them. */
  readonly scopes: string[] | null;
  /** How the record was obtained; null when the record predates skiff keeping it. */
  readonly signIn: SignInKind | null;
  readonly tokenStore: TokenStore;
}

export function tokenDetails(tokens: AuthTokens, store: TokenStore): TokenDetails {
  return {
    token: tokens.accessToken,
    expiresAt: tokens.expiresAt.toISOString(),
    scopes: tokens.scopes() ?? null,
    signIn: tokens.signIn ?? null,
    tokenStore: { kind: store.kind, path: store.path },
  };
}
