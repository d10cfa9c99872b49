import { createHash } from 'node:crypto';
import { challengeFor, derivePkce, deriveState } from '../../../../src/domain/login/auth/pkce';
import { InvalidArgumentError } from '../../../../src/domain/shared/errors';

const sha256 = (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest());

// RFC 7636 appendix B (the challenge is the RFC's "...K1t8URW..."; a copy with "t2U" circulates with a typo).
const RFC_OCTETS = [
  116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214, 191, 240, 91,
  88, 5, 88, 83, 132, 141, 121,
];

describe('PKCE (SSO step 3)', () => {
  it('derives the RFC 7636 appendix B verifier and S256 challenge', () => {
    const pkce = derivePkce(Uint8Array.from(RFC_OCTETS), sha256);
    expect(pkce.verifier).toBe('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk');
    expect(pkce.challenge).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(pkce.method).toBe('S256');
  });

  it('hashes the verifier text, not the random bytes', () => {
    expect(challengeFor('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', sha256)).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('gives a 43-character verifier and challenge in the unreserved alphabet', () => {
    const pkce = derivePkce(new Uint8Array(32).fill(255), sha256);
    expect(pkce.verifier).toHaveLength(43);
    expect(pkce.challenge).toHaveLength(43);
    expect(pkce.verifier).toMatch(/^[A-Za-z0-9\-_]+$/);
    expect(pkce.challenge).toMatch(/^[A-Za-z0-9\-_]+$/);
  });

  it('needs exactly 32 random bytes', () => {
    expect(() => derivePkce(new Uint8Array(31), sha256)).toThrow(InvalidArgumentError);
  });
});

describe('state (SSO step 4)', () => {
  it('is 22 characters of base64url from 16 random bytes', () => {
    expect(deriveState(Uint8Array.from({ length: 16 }, (_, i) => i * 16))).toBe('ABAgMEBQYHCAkKCwwNDg8A');
    expect(deriveState(new Uint8Array(16).fill(0xff))).toHaveLength(22);
  });

  it('needs exactly 16 random bytes', () => {
    expect(() => deriveState(new Uint8Array(32))).toThrow(InvalidArgumentError);
  });
});
