import { createHash, generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { calculateJwkThumbprint } from 'jose';
import {
  accessTokenHash,
  dpopNonce,
  htuOf,
  jwkThumbprint,
  proofSigningInput,
  PublicEcJwk,
} from '../../../../src/domain/login/auth/dpop';
import { PROPERTY_BUDGET } from '../../../support/property';

/** The pure rules of DPoP (RFC 9449) in src/domain/login/auth/dpop.ts; the server's DPoP-Nonce is untrusted bytes. */

const sha256 = (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest());

function aKey(): PublicEcJwk {
  const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }) as PublicEcJwk;
  return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y };
}

describe('dpopNonce on generated header values (RFC 9449 §8.1)', () => {
  it('any text: itself when it is 1 to 1024 NQCHARs (printable ASCII but " and \\), else undefined', () => {
    const unit = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      fc.constantFrom('"', '\\', ' ', '\r', '\n'),
    );
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit, maxLength: 40 }), fc.stringMatching(/^[!#-[\]-~]{1,1100}$/)), (value) => {
        const nqchars = [...value].every((c) => c >= '!' && c <= '~' && c !== '"' && c !== '\\');
        expect(dpopNonce(value)).toBe(nqchars && value.length >= 1 && value.length <= 1024 ? value : undefined);
      }),
      PROPERTY_BUDGET,
    );
    expect(dpopNonce(undefined)).toBeUndefined();
  });
});

describe('the proof and the key', () => {
  it('the RFC 7638 thumbprint equals jose’s for any P-256 key', async () => {
    for (let i = 0; i < 5; i++) {
      const jwk = aKey();
      expect(jwkThumbprint(jwk, sha256)).toBe(await calculateJwkThumbprint(jwk, 'sha256'));
    }
  });

  it('the signing input: a dpop+jwt header with the public JWK only, the claims asked, nonce and ath only when given', () => {
    const jwk = { ...aKey(), d: 'private' } as PublicEcJwk;
    const input = proofSigningInput({ jwk, jti: 'j', htm: 'POST', htu: 'https://a/t', iat: 1, nonce: 'n' });
    const [header, claims] = input.split('.').map((p) => JSON.parse(Buffer.from(p, 'base64url').toString('utf8')));
    expect(header).toEqual({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y } });
    expect(claims).toEqual({ jti: 'j', htm: 'POST', htu: 'https://a/t', iat: 1, nonce: 'n' });
    expect(input).not.toContain(Buffer.from('private').toString('base64url'));
  });

  it('htu drops the query and the fragment; ath is base64url(SHA-256(token))', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => {
        const htu = htuOf(url);
        expect(htu).not.toMatch(/[?#]/);
        expect(url.startsWith(htu)).toBe(true);
      }),
      PROPERTY_BUDGET,
    );
    expect(accessTokenHash('tok', sha256)).toBe(createHash('sha256').update('tok').digest('base64url'));
  });
});
