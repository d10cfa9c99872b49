import {
  deriveNonce,
  ID_TOKEN_LEEWAY_S,
  IdTokenExpectations,
  judgeAlgorithm,
  judgeIdTokenClaims,
} from '../../../../src/domain/login/auth/id-token-claims';
import { IdentityError, InvalidArgumentError } from '../../../../src/domain/shared/errors';

const NOW_S = 1_900_000_000;
const expect_: IdTokenExpectations = {
  issuer: 'https://auth.example.com',
  clientId: 'skiff-cli',
  now: new Date(NOW_S * 1000),
};
const claims = (over: Record<string, unknown> = {}) => ({
  iss: 'https://auth.example.com',
  aud: 'skiff-cli',
  sub: 'alice',
  iat: NOW_S,
  exp: NOW_S + 300,
  email: 'alice@example.com',
  ...over,
});

function refusal(payload: unknown, over: Partial<IdTokenExpectations> = {}): string {
  try {
    judgeIdTokenClaims(payload, { ...expect_, ...over });
  } catch (err) {
    expect(err).toBeInstanceOf(IdentityError);
    expect((err as IdentityError).code).toBe('AUTH.ID_TOKEN_REFUSED');
    return (err as Error).message;
  }
  throw new Error('accepted');
}

describe("judging an id_token's claims (OpenID Connect Core §3.1.3.7)", () => {
  it('accepts the expected issuer and audience within the lifetime; gives the subject and e-mail', () => {
    expect(judgeIdTokenClaims(claims(), expect_)).toEqual({ subject: 'alice', email: 'alice@example.com' });
    expect(judgeIdTokenClaims(claims({ aud: ['other', 'skiff-cli'], azp: 'skiff-cli', email: 7 }), expect_)).toEqual({
      subject: 'alice',
    });
  });

  it('iss must equal the discovered issuer exactly', () => {
    expect(refusal(claims({ iss: 'https://auth.example.com/' }))).toMatch(
      /wrong issuer: "https:\/\/auth.example.com\/", expected "https:\/\/auth.example.com"/,
    );
    expect(refusal(claims({ iss: undefined }))).toMatch(/wrong issuer: undefined/);
  });

  it('aud must contain the client id; azp, when present, must be it', () => {
    expect(refusal(claims({ aud: 'other' }))).toMatch(/wrong audience: "other" does not contain "skiff-cli"/);
    expect(refusal(claims({ aud: ['a', 'b'] }))).toMatch(/wrong audience/);
    expect(refusal(claims({ aud: undefined }))).toMatch(/wrong audience/);
    expect(refusal(claims({ aud: ['skiff-cli', 'x'], azp: 'x' }))).toMatch(/authorized party \(azp\) is "x"/);
  });

  it(`exp, iat and nbf with ${ID_TOKEN_LEEWAY_S} s of leeway`, () => {
    expect(() => judgeIdTokenClaims(claims({ exp: NOW_S - 60 }), expect_)).not.toThrow();
    expect(refusal(claims({ exp: NOW_S - 61 }))).toMatch(/expired at 2030-03-17T17:45:39.000Z \(now .*60 s leeway\)/);
    expect(() => judgeIdTokenClaims(claims({ iat: NOW_S + 60 }), expect_)).not.toThrow();
    expect(refusal(claims({ iat: NOW_S + 61 }))).toMatch(/issued in the future/);
    expect(refusal(claims({ nbf: NOW_S + 61 }))).toMatch(/not valid before/);
    expect(refusal(claims({ exp: undefined }))).toMatch(/malformed: it has no expiry/);
    expect(refusal(claims({ iat: undefined }))).toMatch(/malformed: it has no issue time/);
    expect(refusal(claims({ exp: '9999999999' }))).toMatch(/malformed: exp is not a number/);
  });

  it('the nonce sent must come back, exactly', () => {
    expect(() => judgeIdTokenClaims(claims({ nonce: 'n-1' }), { ...expect_, nonce: 'n-1' })).not.toThrow();
    expect(refusal(claims(), { nonce: 'n-1' })).toMatch(/nonce mismatch: it carries no nonce/);
    expect(refusal(claims({ nonce: 'n-2' }), { nonce: 'n-1' })).toMatch(
      /nonce mismatch: not the nonce of this sign-in/,
    );
    // No nonce expected (device grant, refresh): one present is not judged.
    expect(() => judgeIdTokenClaims(claims({ nonce: 'whatever' }), expect_)).not.toThrow();
  });

  it('a refresh keeps the subject (§12.2); a subject is required', () => {
    expect(refusal(claims({ sub: 'mallory' }), { subject: 'alice' })).toMatch(/wrong subject: "mallory"/);
    expect(refusal(claims({ sub: '' }))).toMatch(/malformed: it has no subject/);
  });

  it('a payload that is not an object is malformed', () => {
    for (const payload of [undefined, null, 'x', [1]]) expect(refusal(payload)).toMatch(/malformed/);
  });

  it('the message says nothing was stored and what to do', () => {
    expect(refusal(claims({ aud: 'x' }))).toMatch(
      /^the id_token from the identity provider was refused: wrong audience.*; nothing was stored: run `skiff auth login` again/,
    );
  });
});

describe('signature algorithms and the nonce', () => {
  it('asymmetric algorithms only: none and HMAC are refused as bad signatures', () => {
    for (const alg of ['RS256', 'PS256', 'ES256', 'EdDSA']) expect(() => judgeAlgorithm(alg)).not.toThrow();
    for (const alg of ['none', 'HS256', undefined])
      expect(() => judgeAlgorithm(alg)).toThrow(/bad signature: algorithm/);
  });

  it('a nonce is 16 random bytes, base64url: 22 characters', () => {
    expect(deriveNonce(new Uint8Array(16).fill(0xff))).toBe('_____________________w');
    expect(() => deriveNonce(new Uint8Array(15))).toThrow(InvalidArgumentError);
  });
});
