import {
  IdTokenClaims,
  idTokenRefused,
  judgeAlgorithm,
  judgeIdTokenClaims,
  keyNotPublished,
  signatureMismatch,
} from '../../../domain/login/auth/id-token-claims';
import { idTokenPayload } from '../../../domain/login/auth/id-token';
import { NetworkError } from '../../../domain/shared/errors';
import { IdTokenVerification, IdTokenVerifier } from '../../../application/login/ports/id-token-verifier.port';

/** The key the fake provider signs with unless told otherwise. */
const FAKE_KEY_ID = 'fake-key-1';

const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/**
 * A JWT "signed" for the fakes: the signature segment names the key id and its
 * secret, which FakeIdTokenVerifier compares with the keys its provider publishes.
 * `secret` other than the published one stands for a forged signature.
 */
export function fakeSignedJwt(
  claims: Record<string, unknown>,
  { kid = FAKE_KEY_ID, secret = kid, alg = 'RS256' }: { kid?: string; secret?: string; alg?: string } = {},
): string {
  const header = b64url(JSON.stringify({ alg, typ: 'JWT', kid }));
  return `${header}.${b64url(JSON.stringify(claims))}.${b64url(`fake-signature ${kid} ${secret}`)}`;
}

/**
 * The IdTokenVerifier in memory: the provider's JWK Set is `published` (key id ->
 * secret), "fetched" once per jwks_uri and again, once, for an unknown key id, as
 * the jose adapter does; the claims are judged by the same domain rules. The
 * contract suite (test/contract/login/id-token-verifier.contract.ts) holds the two alike.
 */
export class FakeIdTokenVerifier implements IdTokenVerifier {
  published = new Map<string, string>([[FAKE_KEY_ID, FAKE_KEY_ID]]);
  /** Every jwks_uri fetched, in order. */
  readonly fetches: string[] = [];
  readonly verifications: Array<{ idToken: string; verification: IdTokenVerification }> = [];
  /** When set, fetching the JWK Set answers this HTTP status. */
  jwksStatus: number | undefined;
  private readonly held = new Map<string, Map<string, string>>();

  async verify(idToken: string, verification: IdTokenVerification): Promise<IdTokenClaims> {
    this.verifications.push({ idToken, verification });
    const segments = idToken.split('.');
    let header: Record<string, unknown>;
    try {
      header = idTokenPayload(`x.${segments[0]}`);
    } catch {
      throw idTokenRefused('malformed: it is not a signed JWT');
    }
    if (segments.length !== 3) throw idTokenRefused('malformed: it is not a signed JWT (JWS compact form)');
    judgeAlgorithm(header.alg);
    const kid = header.kid;
    let keys = this.held.get(verification.jwksUri);
    const fresh = keys === undefined;
    keys ??= this.fetch(verification.jwksUri);
    if (typeof kid !== 'string' || !keys.has(kid)) {
      if (!fresh) keys = this.fetch(verification.jwksUri);
      if (typeof kid !== 'string' || !keys.has(kid)) throw keyNotPublished(kid);
    }
    if (segments[2] !== b64url(`fake-signature ${kid} ${keys.get(kid)}`)) throw signatureMismatch(kid);
    return judgeIdTokenClaims(idTokenPayload(idToken), verification);
  }

  private fetch(jwksUri: string): Map<string, string> {
    this.fetches.push(jwksUri);
    if (this.jwksStatus !== undefined) {
      throw new NetworkError(
        `the identity provider at ${new URL(jwksUri).host} answered the request for its signing keys (jwks_uri) with HTTP ${this.jwksStatus}`,
        'OIDC.JWKS_STATUS',
      );
    }
    const keys = new Map(this.published);
    this.held.set(jwksUri, keys);
    return keys;
  }
}
