import { formatUtc, statusReport } from '../../../../src/domain/login/auth/status-report';
import { TokenStore } from '../../../../src/domain/login/auth/token-store';
import { aRecord, expiringIn, idToken, NOW } from '../../../support/tokens';

const STORE: TokenStore = { kind: 'file', path: '/home/a/.local/share/skiff/auth/example.com.json' };

describe('status facts (docs/login-contract.md, status output)', () => {
  it('formats times as YYYY-MM-DD HH:MM:SS UTC', () => {
    expect(formatUtc(new Date('2030-02-03T04:05:06.789Z'))).toBe('2030-02-03 04:05:06 UTC');
  });

  it('without a cache: not logged in', () => {
    expect(statusReport(undefined, NOW, STORE)).toEqual({ loggedIn: false });
    expect(statusReport(undefined, NOW, STORE, 'cache x is not valid JSON')).toEqual({
      loggedIn: false,
      problem: 'cache x is not valid JSON',
    });
  });

  it('a valid token: identity, valid until, domain, no refresh line', () => {
    expect(statusReport(aRecord({ giteaToken: 'g' }), NOW, STORE)).toEqual({
      loggedIn: true,
      identity: 'alice@example.com',
      expired: false,
      expiresAt: '2030-01-01T01:00:00.000Z',
      refreshOnNextUse: false,
      domain: 'example.com',
      gitToken: true,
      scopes: ['openid', 'email', 'profile', 'offline_access'],
      signIn: 'person',
      tokenStore: STORE,
    });
  });

  it("a robot's identity is its client, its kind client-credentials, its scopes unknown", () => {
    expect(statusReport(aRecord({ idToken: undefined, clientId: 'ci' }), NOW, STORE)).toMatchObject({
      identity: 'client ci',
      scopes: null,
      signIn: 'client-credentials',
      tokenStore: STORE,
    });
  });

  it('expired when expires_at <= now, refreshed on next use when a refresh token exists', () => {
    expect(statusReport(expiringIn(0), NOW, STORE)).toMatchObject({ expired: true, refreshOnNextUse: true });
    expect(statusReport(expiringIn(-1, { refreshToken: '' }), NOW, STORE)).toMatchObject({
      expired: true,
      refreshOnNextUse: false,
    });
  });

  it('a token expiring within the margin is still shown valid (no margin for status)', () => {
    expect(statusReport(expiringIn(30), NOW, STORE)).toMatchObject({ expired: false });
  });

  it('identity unknown when the id_token is missing or has no email', () => {
    expect(statusReport(aRecord({ idToken: undefined }), NOW, STORE)).toMatchObject({ identity: 'unknown' });
    expect(statusReport(aRecord({ idToken: idToken({ sub: 'x' }) }), NOW, STORE)).toMatchObject({
      identity: 'unknown',
    });
    expect(statusReport(aRecord({ idToken: 'garbage' }), NOW, STORE)).toMatchObject({ identity: 'unknown' });
  });

  it('carries no token', () => {
    const text = JSON.stringify(statusReport(aRecord({ giteaToken: 'git-secret' }), NOW, STORE));
    for (const secret of ['access-1', 'refresh-1', 'git-secret', aRecord().idToken as string])
      expect(text).not.toContain(secret);
  });
});
