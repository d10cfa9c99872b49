import { IdTokenClaims, IdTokenExpectations } from '../../../domain/login/auth/id-token-claims';

export const ID_TOKEN_VERIFIER = Symbol('IdTokenVerifier');

/** Where the provider's keys are, and what the id_token must say. */
export interface IdTokenVerification extends IdTokenExpectations {
  /** The discovery document's `jwks_uri`. */
  readonly jwksUri: string;
}

/**
 * Verifies an id_token when it is received (never when a cached one is read): its
 * signature against the provider's JWK Set at `jwksUri` (fetched once per process and
 * fetched again, once, for a key id it does not hold), then its claims by the rules of
 * judgeIdTokenClaims. A refused id_token is an IdentityError naming what failed
 * (idTokenRefused); a JWK Set that cannot be fetched or read is a NetworkError.
 */
export interface IdTokenVerifier {
  verify(idToken: string, verification: IdTokenVerification): Promise<IdTokenClaims>;
}
