import { AuthTokenFields, AuthTokens } from '../../src/domain/login/auth/auth-tokens';
import { aRecord, NOW } from '../../src/adapters/fakes/login/tokens';
import { FakeIdentityProvider } from '../../src/adapters/fakes/login/fake-identity-provider';

export { aRecord, idToken, NOW } from '../../src/adapters/fakes/login/tokens';

/** A record whose access token has `seconds` left at NOW (negative: expired that long ago). */
export function expiringIn(seconds: number, fields: Partial<AuthTokenFields> = {}): AuthTokens {
  return aRecord({ expiresAt: new Date(NOW.getTime() + seconds * 1000), ...fields });
}

/**
 * The provider's side of the nonce (OpenID Connect Core §3.1.2.1): the id_token of the
 * next token reply gets the nonce of this authorization URL, as a provider puts the one
 * it was sent into what it issues (an id_token that already has a `nonce` is left).
 */
export function issueWithNonce(provider: FakeIdentityProvider, authorizationUrl: string): void {
  const nonce = new URL(authorizationUrl).searchParams.get('nonce');
  if (nonce === null) return;
  const [reply] = provider.tokenReplies;
  if (reply === undefined || typeof reply === 'number' || reply.idToken === undefined) return;
  const [header, payload, signature] = reply.idToken.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  if ('nonce' in claims) return;
  const stamped = Buffer.from(JSON.stringify({ ...claims, nonce }), 'utf8').toString('base64url');
  provider.tokenReplies[0] = { ...reply, idToken: `${header}.${stamped}.${signature}` };
}
