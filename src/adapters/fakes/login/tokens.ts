import { AuthTokenFields, AuthTokens } from '../../../domain/login/auth/auth-tokens';
import { fakeSignedJwt } from './fake-id-token-verifier';

/** What the fake clock says unless a test sets it. */
export const NOW = new Date('2030-01-01T00:00:00.000Z');

/** The issuer the fake identity provider discovers for example.com. */
const FAKE_ISSUER = 'https://auth.example.com';

/**
 * An id_token the fake provider signed (FakeIdTokenVerifier accepts it): issued by
 * FAKE_ISSUER for skiff-cli to alice at NOW, valid an hour, with these claims over
 * those. SsoLogin also needs the nonce it sent: `nonce: ...` from the authorization URL.
 */
export function idToken(claims: Record<string, unknown>): string {
  const iat = Math.floor(NOW.getTime() / 1000);
  return fakeSignedJwt({ iss: FAKE_ISSUER, aud: 'skiff-cli', sub: 'alice', iat, exp: iat + 3600, ...claims });
}

/** A cache record (object mother): alice on example.com, valid for an hour after NOW unless told otherwise. */
export function aRecord(fields: Partial<AuthTokenFields> = {}): AuthTokens {
  return new AuthTokens({
    accessToken: 'access-1',
    refreshToken: 'refresh-1',
    expiresAt: new Date(NOW.getTime() + 3600_000),
    idToken: idToken({ sub: 'alice', email: 'alice@example.com' }),
    domain: 'example.com',
    ...fields,
  });
}
