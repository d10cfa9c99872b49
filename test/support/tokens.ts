import { AuthTokenFields, AuthTokens } from '../../src/domain/login/auth/auth-tokens';

const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** An unsigned JWT with these claims (the CLI never verifies signatures). */
export function idToken(claims: Record<string, unknown>): string {
  return `${b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }))}.${b64url(JSON.stringify(claims))}.c2lnbmF0dXJl`;
}

export const NOW = new Date('2030-01-01T00:00:00.000Z');

/** A cache record (object mother): valid for an hour after NOW unless told otherwise. */
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

/** A record whose access token has `seconds` left at NOW (negative: expired that long ago). */
export function expiringIn(seconds: number, fields: Partial<AuthTokenFields> = {}): AuthTokens {
  return aRecord({ expiresAt: new Date(NOW.getTime() + seconds * 1000), ...fields });
}
