import { inject, injectable } from 'inversify';
import { AuthTokens } from '../../../domain/login/auth/auth-tokens';
import { AuthScope } from './auth-scope';
import { DpopProofs } from './dpop-proofs';

/** The headers of one request with the access token (RFC 6750 §2.1, RFC 9449 §7.1). */
export type AuthorizationHeaders = Readonly<Record<string, string>>;

/** Makes a fresh DPoP proof for one request to a resource with a bound token (RFC 9449 §7). */
export type ResourceProver = (method: string, url: string) => Promise<string>;

/**
 * How every call skiff makes with the access token authenticates (docs/login-contract.md,
 * "DPoP"): `Authorization: Bearer <token>`, or for a DPoP-bound record `Authorization: DPoP
 * <token>` and a new proof (its own `jti`, `iat`, and the token's `ath`) for that request.
 */
@injectable()
export class ResourceAuthorization {
  constructor(@inject(DpopProofs) private readonly proofs: DpopProofs) {}

  /** A prover for the record's token when it is DPoP-bound, else undefined (a bearer token). */
  async prover(scope: AuthScope, tokens: AuthTokens): Promise<ResourceProver | undefined> {
    if (!tokens.dpopBound()) return undefined;
    const key = await this.proofs.boundKey(scope.cacheDomain);
    return (method, url) => this.proofs.proof(key, { method, url, accessToken: tokens.accessToken });
  }

  /** The headers for one request, with a fresh proof each time for a bound token. */
  async headers(
    scope: AuthScope,
    tokens: AuthTokens,
  ): Promise<(method: string, url: string) => Promise<AuthorizationHeaders>> {
    const prove = await this.prover(scope, tokens);
    if (prove === undefined) return async () => ({ Authorization: `Bearer ${tokens.accessToken}` });
    return async (method, url) => ({ Authorization: `DPoP ${tokens.accessToken}`, DPoP: await prove(method, url) });
  }
}
