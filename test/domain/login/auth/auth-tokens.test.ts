import { AuthTokens, FRESHNESS_MARGIN_MS } from '../../../../src/domain/login/auth/auth-tokens';
import { SCOPE } from '../../../../src/domain/login/auth/authorization-url';
import { DEFAULT_TOKEN_LIFETIME_S } from '../../../../src/domain/login/auth/token-response';
import { aRecord, expiringIn, NOW } from '../../../support/tokens';

const at = (ms: number) => new Date(NOW.getTime() + ms);

describe('token freshness (60-second margin)', () => {
  it('is valid while more than 60 s remain', () => {
    expect(FRESHNESS_MARGIN_MS).toBe(60_000);
    expect(expiringIn(61).freshness(NOW)).toBe('valid');
    expect(expiringIn(60).freshness(at(-1))).toBe('valid');
  });

  it('is expiring with 60 s or less left', () => {
    expect(expiringIn(60).freshness(NOW)).toBe('expiring');
    expect(expiringIn(1).freshness(NOW)).toBe('expiring');
  });

  it('is expired at and after expires_at', () => {
    expect(expiringIn(0).freshness(NOW)).toBe('expired');
    expect(expiringIn(-5).freshness(NOW)).toBe('expired');
  });

  it('status counts a token expired when expires_at <= now', () => {
    expect(expiringIn(0).isExpired(NOW)).toBe(true);
    expect(expiringIn(1).isExpired(NOW)).toBe(false);
  });
});

describe('the record of an SSO login (SSO step 12)', () => {
  it("holds exactly the specification's fields, whatever the reply holds", () => {
    const tokens = AuthTokens.fromLogin({ accessToken: 'a', refreshToken: 'r', idToken: 'h.p.s' }, 'd', NOW);
    expect(Object.keys(tokens).sort()).toEqual(['accessToken', 'domain', 'expiresAt', 'idToken', 'refreshToken']);
  });

  it("is a person's: the kind and the scopes are derived (those skiff asks for), never stored", () => {
    const tokens = AuthTokens.fromLogin({ accessToken: 'a' }, 'd', NOW);
    expect(tokens.signInKind()).toBe('person');
    expect(tokens.scopes()).toEqual(['openid', 'email', 'profile', 'offline_access']);
    expect(SCOPE.split(' ')).toEqual(tokens.scopes());
  });

  it("a refresh keeps exactly the specification's fields, whatever the reply holds", () => {
    const signedIn = AuthTokens.fromLogin({ accessToken: 'a', refreshToken: 'r' }, 'd', NOW);
    const refreshed = signedIn.withRefreshed({ accessToken: 'b', idToken: 'h.p.s' }, NOW);
    expect(Object.keys(refreshed).sort()).toEqual(['accessToken', 'domain', 'expiresAt', 'idToken', 'refreshToken']);
    expect(refreshed.signInKind()).toBe('person');
  });

  it('expires after expires_in seconds', () => {
    const tokens = AuthTokens.fromLogin(
      { accessToken: 'a', refreshToken: 'r', expiresIn: 120, idToken: 'h.p.s' },
      'example.com',
      NOW,
    );
    expect(tokens.expiresAt).toEqual(at(120_000));
    expect(tokens).toMatchObject({ accessToken: 'a', refreshToken: 'r', idToken: 'h.p.s', domain: 'example.com' });
    expect(tokens.giteaToken).toBeUndefined();
  });

  it('uses 3600 s when expires_in is absent, an empty refresh token when none came, no id_token key', () => {
    const tokens = AuthTokens.fromLogin({ accessToken: 'a' }, 'example.com', NOW);
    expect(DEFAULT_TOKEN_LIFETIME_S).toBe(3600);
    expect(tokens.expiresAt).toEqual(at(3600_000));
    expect(tokens.refreshToken).toBe('');
    expect(tokens.idToken).toBeUndefined();
    expect(tokens.canRefresh()).toBe(false);
    expect(tokens.renewable()).toBe(false);
  });

  it('renewable: with a refresh token, or as a robot with its client (which has no refresh token)', () => {
    expect(AuthTokens.fromLogin({ accessToken: 'a', refreshToken: 'r' }, 'example.com', NOW).renewable()).toBe(true);
    const robot = AuthTokens.fromClientCredentials({ accessToken: 'a' }, 'example.com', NOW, { clientId: 'ci' });
    expect([robot.canRefresh(), robot.renewable()]).toEqual([false, true]);
  });
});

describe('the refresh merge rule', () => {
  const old = aRecord({
    refreshToken: 'old-refresh',
    idToken: 'old.id.token',
    giteaToken: 'git-1',
    domain: 'example.com',
  });

  it('takes the new access token and expiry, keeps the old refresh and id tokens when the reply lacks them', () => {
    const merged = old.withRefreshed({ accessToken: 'new-access' }, at(10_000));
    expect(merged).toMatchObject({ accessToken: 'new-access', refreshToken: 'old-refresh', idToken: 'old.id.token' });
    expect(merged.expiresAt).toEqual(at(10_000 + 3600_000));
  });

  it('takes a rotated refresh token and a new id token from the reply', () => {
    const merged = old.withRefreshed(
      { accessToken: 'new', refreshToken: 'rotated', idToken: 'new.id.token', expiresIn: 300 },
      NOW,
    );
    expect(merged).toMatchObject({ refreshToken: 'rotated', idToken: 'new.id.token' });
    expect(merged.expiresAt).toEqual(at(300_000));
  });

  it('keeps the domain and the git token', () => {
    const merged = old.withRefreshed({ accessToken: 'new' }, NOW);
    expect(merged.domain).toBe('example.com');
    expect(merged.giteaToken).toBe('git-1');
  });

  it('leaves the old record untouched', () => {
    old.withRefreshed({ accessToken: 'new' }, NOW);
    expect(old.accessToken).toBe('access-1');
    expect(Object.isFrozen(old)).toBe(true);
  });
});

describe('git login record (git step 4)', () => {
  it('starts from empty tokens expiring now for the resolved domain', () => {
    const empty = AuthTokens.empty('example.com', NOW);
    expect(empty).toMatchObject({ accessToken: '', refreshToken: '', domain: 'example.com' });
    expect(empty.expiresAt).toEqual(NOW);
    expect(empty.idToken).toBeUndefined();
  });

  it('sets the git token, fills an empty domain and keeps a set one', () => {
    expect(aRecord({ domain: '' }).withGiteaToken('g', 'example.com')).toMatchObject({
      giteaToken: 'g',
      domain: 'example.com',
    });
    expect(aRecord({ domain: 'other.org' }).withGiteaToken('g', 'example.com').domain).toBe('other.org');
    expect(aRecord().withGiteaToken('g', 'x').accessToken).toBe('access-1');
  });
});
