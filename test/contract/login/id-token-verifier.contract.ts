import { IdentityError, NetworkError } from '../../../src/domain/shared/errors';
import { IdTokenVerifier } from '../../../src/application/login/ports/id-token-verifier.port';

/** Who signs: the provider's published key, a key it never published, another key under its key id, its next key. */
export type Signer = 'provider' | 'stranger' | 'impostor' | 'next';

/** A verifier to test, and the provider whose keys it fetches. */
export interface IdTokenVerifierWorld {
  readonly verifier: IdTokenVerifier;
  readonly jwksUri: string;
  sign(claims: Record<string, unknown>, signer?: Signer): Promise<string>;
  /** The provider publishes its next key too (a key rotation). */
  rotate(): Promise<void>;
  /** The JWK Set answers this status from now on (undefined: the keys again). */
  failJwks(status: number | undefined): void;
  jwksFetches(): number;
  close(): Promise<void>;
}

const ISSUER = 'https://auth.example.com';
const NOW = new Date('2030-01-01T00:00:00.000Z');
const NOW_S = NOW.getTime() / 1000;
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

export function idTokenVerifierContract(name: string, make: () => Promise<IdTokenVerifierWorld>): void {
  describe(`${name} honours the IdTokenVerifier contract`, () => {
    let world: IdTokenVerifierWorld;
    beforeEach(async () => (world = await make()));
    afterEach(() => world.close());

    const claims = (over: Record<string, unknown> = {}) => ({
      iss: ISSUER,
      aud: 'skiff-cli',
      sub: 'alice',
      email: 'alice@example.com',
      iat: NOW_S,
      exp: NOW_S + 600,
      nonce: 'n-1',
      ...over,
    });
    const verify = (token: string, over: Record<string, unknown> = {}) =>
      world.verifier.verify(token, {
        jwksUri: world.jwksUri,
        issuer: ISSUER,
        clientId: 'skiff-cli',
        now: NOW,
        nonce: 'n-1',
        ...over,
      });
    const refusal = async (token: string, over: Record<string, unknown> = {}) => {
      const err = await verify(token, over).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IdentityError);
      return (err as Error).message;
    };

    it('verifies an id_token signed with the published key: its subject and e-mail', async () => {
      await expect(verify(await world.sign(claims()))).resolves.toEqual({
        subject: 'alice',
        email: 'alice@example.com',
      });
    });

    it('fetches the JWK Set once for the process', async () => {
      await verify(await world.sign(claims()));
      await verify(await world.sign(claims({ sub: 'alice', email: undefined })));
      expect(world.jwksFetches()).toBe(1);
    });

    it('a key id it does not hold: fetched again once; the rotated key verifies', async () => {
      await verify(await world.sign(claims()));
      await world.rotate();
      await expect(verify(await world.sign(claims(), 'next'))).resolves.toMatchObject({ subject: 'alice' });
      expect(world.jwksFetches()).toBe(2);
      await verify(await world.sign(claims(), 'next'));
      expect(world.jwksFetches()).toBe(2);
    });

    it('a key outside the JWKS: bad signature, after one more fetch', async () => {
      await verify(await world.sign(claims()));
      expect(await refusal(await world.sign(claims(), 'stranger'))).toMatch(
        /bad signature: it is signed with a key that is not in the provider's JWKS \(key id "stranger"\)/,
      );
      expect(world.jwksFetches()).toBe(2);
    });

    it("another key under the provider's key id: bad signature", async () => {
      expect(await refusal(await world.sign(claims(), 'impostor'))).toMatch(
        /bad signature: it does not verify with the provider's key/,
      );
    });

    it('alg none and HMAC are refused before any key is looked at', async () => {
      for (const alg of ['none', 'HS256']) {
        const token = `${b64url({ alg, kid: 'k1' })}.${b64url(claims())}.`;
        expect(await refusal(token)).toMatch(new RegExp(`bad signature: algorithm "${alg}" is not accepted`));
      }
    });

    it('not a JWT: malformed', async () => {
      expect(await refusal('not-a-jwt')).toMatch(/malformed/);
    });

    it('the claims are judged after the signature: audience, issuer, expiry, nonce', async () => {
      expect(await refusal(await world.sign(claims({ aud: 'other' })))).toMatch(/wrong audience/);
      expect(await refusal(await world.sign(claims({ iss: 'https://evil.example' })))).toMatch(/wrong issuer/);
      expect(await refusal(await world.sign(claims({ exp: NOW_S - 120 })))).toMatch(/expired at/);
      expect(await refusal(await world.sign(claims({ nonce: 'n-2' })))).toMatch(/nonce mismatch/);
      expect(await refusal(await world.sign(claims({ nonce: undefined })))).toMatch(/nonce mismatch/);
    });

    it('a JWK Set that cannot be fetched is a network error, and is fetched again next time', async () => {
      world.failJwks(503);
      const err = await verify(await world.sign(claims())).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as Error).message).toMatch(/signing keys \(jwks_uri\) with HTTP 503/);
      world.failJwks(undefined);
      await expect(verify(await world.sign(claims()))).resolves.toMatchObject({ subject: 'alice' });
      expect(world.jwksFetches()).toBe(2);
    });
  });
}
