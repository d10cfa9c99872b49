import { AuthTokenFields, AuthTokens } from '../../../domain/login/auth/auth-tokens';

const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** What the fake clock says unless a test sets it. */
export const NOW = new Date('2030-01-01T00:00:00.000Z');

/** An unsigned JWT with these claims (skiff reads id token claims for display only, never verifying). */
export function idToken(claims: Record<string, unknown>): string {
  return `${b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }))}.${b64url(JSON.stringify(claims))}.c2lnbmF0dXJl`;
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
