import { AuthTokenFields, AuthTokens } from '../../src/domain/login/auth/auth-tokens';
import { aRecord, NOW } from '../../src/adapters/fakes/login/tokens';

export { aRecord, idToken, NOW } from '../../src/adapters/fakes/login/tokens';

/** A record whose access token has `seconds` left at NOW (negative: expired that long ago). */
export function expiringIn(seconds: number, fields: Partial<AuthTokenFields> = {}): AuthTokens {
  return aRecord({ expiresAt: new Date(NOW.getTime() + seconds * 1000), ...fields });
}
