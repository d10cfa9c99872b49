import type * as Jose from 'jose';
import {
  ID_TOKEN_ALGORITHMS,
  IdTokenClaims,
  idTokenRefused,
  judgeAlgorithm,
  judgeIdTokenClaims,
  keyNotPublished,
  signatureMismatch,
} from '../../../../domain/login/auth/id-token-claims';
import { NetworkError } from '../../../../domain/shared/errors';
import { IdTokenVerification, IdTokenVerifier } from '../../../../application/login/ports/id-token-verifier.port';
import { HttpClient, hostOf, parseJsonReply } from '../../helpers/http-client';

type KeySet = ReturnType<typeof Jose.createLocalJWKSet>;
type Key = Awaited<ReturnType<KeySet>>;

const codeOf = (err: unknown) => String((err as { code?: unknown } | undefined)?.code ?? '');

/**
 * id_tokens verified with jose (its CommonJS build, loaded on the first verification:
 * a command that only reads the cache never loads it). The provider's JWK Set is
 * fetched through skiff's HTTP client (proxies, NODE_EXTRA_CA_CERTS, time-outs, size
 * limit), kept in memory per `jwks_uri` for the process, and fetched again once when
 * an id_token names a key id it does not hold (the provider rotated its keys). The
 * signature is jose's to check; the claims are the domain's (judgeIdTokenClaims).
 */
export class JoseIdTokenVerifier implements IdTokenVerifier {
  private readonly sets = new Map<string, Promise<KeySet>>();
  private jose: typeof Jose | undefined;

  constructor(private readonly http: HttpClient) {}

  async verify(idToken: string, verification: IdTokenVerification): Promise<IdTokenClaims> {
    const jose = (this.jose ??= require('jose') as typeof Jose);
    let header: Jose.ProtectedHeaderParameters;
    try {
      header = jose.decodeProtectedHeader(idToken);
    } catch {
      throw idTokenRefused('malformed: it is not a signed JWT');
    }
    if (idToken.split('.').length !== 3) throw idTokenRefused('malformed: it is not a signed JWT (JWS compact form)');
    judgeAlgorithm(header.alg);
    const cached = this.sets.get(verification.jwksUri);
    let payload: Uint8Array;
    try {
      payload = await this.verifyWith(
        jose,
        idToken,
        header,
        await this.keySet(verification.jwksUri, cached === undefined),
      );
    } catch (err) {
      if (codeOf(err) !== 'ERR_JWKS_NO_MATCHING_KEY' || cached === undefined) throw this.refusal(err, header);
      // A key id this process has not seen: the provider may have rotated its keys since the set was fetched.
      try {
        payload = await this.verifyWith(jose, idToken, header, await this.keySet(verification.jwksUri, true));
      } catch (again) {
        throw this.refusal(again, header);
      }
    }
    let claims: unknown;
    try {
      claims = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
    } catch {
      claims = undefined;
    }
    return judgeIdTokenClaims(claims, verification);
  }

  private async verifyWith(
    jose: typeof Jose,
    idToken: string,
    header: Jose.ProtectedHeaderParameters,
    keys: KeySet,
  ): Promise<Uint8Array> {
    const algorithms = [...ID_TOKEN_ALGORITHMS];
    let key: Key;
    try {
      key = await keys(header);
    } catch (err) {
      // No key id and more than one key of its type: try each (jose hands them over as an async iterable).
      if (codeOf(err) !== 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') throw err;
      for await (const candidate of err as AsyncIterable<Key>) {
        try {
          return (await jose.compactVerify(idToken, candidate, { algorithms })).payload;
        } catch {
          // the next one
        }
      }
      throw Object.assign(new Error('no key verifies'), { code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
    }
    return (await jose.compactVerify(idToken, key, { algorithms })).payload;
  }

  private refusal(err: unknown, header: Jose.ProtectedHeaderParameters): Error {
    if (err instanceof NetworkError) return err;
    switch (codeOf(err)) {
      case 'ERR_JWKS_NO_MATCHING_KEY':
        return keyNotPublished(header.kid);
      case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
        return signatureMismatch(header.kid);
      case 'ERR_JOSE_ALG_NOT_ALLOWED':
      case 'ERR_JOSE_NOT_SUPPORTED':
        return idTokenRefused(`bad signature: algorithm ${JSON.stringify(header.alg)} is not accepted`);
      case 'ERR_JWKS_INVALID':
      case 'ERR_JWK_INVALID':
        return idTokenRefused("bad signature: the provider's JWKS holds no usable key for it");
      default:
        return idTokenRefused('malformed: it is not a valid signed JWT');
    }
  }

  /** The set of `jwksUri`, from memory unless `fetch`; a failed fetch is not kept. */
  private keySet(jwksUri: string, fetch: boolean): Promise<KeySet> {
    const known = this.sets.get(jwksUri);
    if (known !== undefined && !fetch) return known;
    const loading = this.fetchSet(jwksUri);
    this.sets.set(jwksUri, loading);
    loading.catch(() => {
      if (this.sets.get(jwksUri) === loading) this.sets.delete(jwksUri);
    });
    return loading;
  }

  private async fetchSet(jwksUri: string): Promise<KeySet> {
    const jose = (this.jose ??= require('jose') as typeof Jose);
    const host = hostOf(jwksUri);
    const reply = await this.http.send({ method: 'GET', url: jwksUri, headers: { Accept: 'application/json' } });
    if (reply.status < 200 || reply.status >= 300) {
      throw new NetworkError(
        `the identity provider at ${host} answered the request for its signing keys (jwks_uri) with HTTP ${reply.status}`,
        'OIDC.JWKS_STATUS',
      );
    }
    const doc = parseJsonReply(reply, jwksUri, 'the request for its signing keys');
    try {
      return jose.createLocalJWKSet(doc as Jose.JSONWebKeySet);
    } catch {
      throw new NetworkError(`the signing keys of ${host} (jwks_uri) are not a JSON Web Key Set`, 'OIDC.BAD_JWKS');
    }
  }
}
