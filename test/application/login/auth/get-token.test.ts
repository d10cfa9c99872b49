import { GetToken } from '../../../../src/application/login/auth/get-token.use-case';
import { KubeCredential } from '../../../../src/application/login/auth/kube-credential.use-case';
import { ConfigurationError, IdentityError, NetworkError } from '../../../../src/domain/shared/errors';
import { configWith, skiffTestbed } from '../../../../src/infrastructure/login/testing/skiff-testbed';
import { aRecord, expiringIn, NOW } from '../../../support/tokens';

/** The sign-in state table (docs/login-contract.md), row by row, for get_token. */
describe('get_token', () => {
  it('no cache file: not logged in, advising `skiff auth login`', async () => {
    const h = skiffTestbed();
    const err = await h
      .get(GetToken)
      .execute({})
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IdentityError);
    expect((err as Error).message).toMatch(/not logged in.*skiff auth login/);
    expect(h.cache.records.size).toBe(0);
  });

  it('no domain anywhere (no --domain, no context, no record, no discovery): the configuration error of "Which domain", as for a login', async () => {
    const h = skiffTestbed(configWith());
    for (const call of [
      () => h.get(GetToken).execute({}),
      () => h.get(KubeCredential).execute({ target: {}, execInfo: undefined }),
    ]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigurationError);
      expect((err as Error).message).toBe(
        'cannot determine the domain: pass --domain <domain> or run `skiff config set --host <domain>`',
      );
    }
    expect(h.discovery.calls).toBe(2);
  });

  it('no domain configured: the record of the default file is used; a discovered domain without one is not logged in', async () => {
    const h = skiffTestbed(configWith());
    h.discovery.domain = 'found.example';
    await expect(h.get(GetToken).execute({})).rejects.toThrow(/^not logged in: run `skiff auth login`$/);
    h.cache.records.set('', aRecord());
    await expect(h.get(GetToken).execute({})).resolves.toBe('access-1');
  });

  it('unreadable or unparsable cache: not logged in, naming the file', async () => {
    const h = skiffTestbed();
    h.cache.markCorrupt('example.com');
    const err = await h
      .get(GetToken)
      .execute({})
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IdentityError);
    expect((err as Error).message).toContain('/fake/auth/example.com.json');
    expect((err as Error).message).toContain('skiff auth login');
  });

  it('valid (more than 60 s left): the access token, no network call, cache unchanged', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', expiringIn(61));
    await expect(h.get(GetToken).execute({})).resolves.toBe('access-1');
    expect(h.provider.discoveries).toHaveLength(0);
    expect(h.provider.tokenCalls).toHaveLength(0);
    expect(h.cache.writes).toBe(0);
    expect(h.lock.acquisitions).toBe(0);
  });

  it('details (`auth token --json`): the token got the same way, its expiry, scopes, sign-in kind and store', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', expiringIn(61));
    await expect(h.get(GetToken).details({})).resolves.toEqual({
      token: 'access-1',
      expiresAt: new Date(NOW.getTime() + 61_000).toISOString(),
      scopes: ['openid', 'email', 'profile', 'offline_access'],
      signIn: 'person',
      tokenStore: { kind: 'memory', path: '/fake/auth/example.com.json' },
    });
    // A refresh changes nothing shown: the scopes are the ones skiff asks for.
    h.cache.records.set('example.com', expiringIn(30));
    h.provider.tokenReplies = [{ accessToken: 'access-2', expiresIn: 600 }];
    await expect(h.get(GetToken).details({})).resolves.toMatchObject({
      token: 'access-2',
      scopes: ['openid', 'email', 'profile', 'offline_access'],
      signIn: 'person',
    });
    h.cache.records.set('example.com', expiringIn(61, { refreshToken: '', idToken: undefined, clientId: 'ci' }));
    await expect(h.get(GetToken).details({})).resolves.toMatchObject({ scopes: null, signIn: 'client-credentials' });
  });

  it('expiring within 60 s, refresh succeeds: new record written, new token returned', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', expiringIn(60, { giteaToken: 'git-1' }));
    h.provider.tokenReplies = [{ accessToken: 'access-2', refreshToken: 'refresh-2', expiresIn: 600 }];
    await expect(h.get(GetToken).execute({})).resolves.toBe('access-2');
    const written = h.cache.records.get('example.com');
    expect(written).toMatchObject({
      accessToken: 'access-2',
      refreshToken: 'refresh-2',
      giteaToken: 'git-1',
      domain: 'example.com',
    });
    expect(written?.expiresAt).toEqual(new Date(NOW.getTime() + 600_000));
    expect(h.provider.tokenCalls[0]).toEqual({
      grant: 'refresh_token',
      endpoint: 'https://auth.example.com/token',
      refreshToken: 'refresh-1',
      clientId: 'skiff-cli',
    });
  });

  it('expired, refresh succeeds without a new refresh token: the old one is kept', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', expiringIn(-3600));
    h.provider.tokenReplies = [{ accessToken: 'access-2' }];
    await h.get(GetToken).execute({});
    expect(h.cache.records.get('example.com')).toMatchObject({ accessToken: 'access-2', refreshToken: 'refresh-1' });
  });

  it("refresh discovers the token endpoint from the cached record's domain", async () => {
    const h = skiffTestbed({ contexts: [] });
    h.cache.records.set('', expiringIn(-1, { domain: 'recorded.org' }));
    h.provider.tokenReplies = [{ accessToken: 'access-2' }];
    await h.get(GetToken).execute({});
    expect(h.provider.discoveries).toEqual(['https://auth.recorded.org']);
    expect(h.cache.records.get('')?.accessToken).toBe('access-2');
  });

  it('expired, refresh fails: a warning with the failure, then session expired; cache unchanged', async () => {
    const h = skiffTestbed();
    const before = expiringIn(-10);
    h.cache.records.set('example.com', before);
    h.provider.tokenReplies = [400];
    const err = await h
      .get(GetToken)
      .execute({})
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IdentityError);
    expect((err as Error).message).toMatch(/session expired.*skiff auth login/);
    expect(h.notifier.warnings).toHaveLength(1);
    expect(h.notifier.warnings[0]).toMatch(/refresh failed.*HTTP 400.*invalid_grant/);
    expect(h.cache.records.get('example.com')).toBe(before);
  });

  it('expired, discovery unreachable: same warning-then-expired path', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', expiringIn(-10));
    h.provider.discoveryStatus = 503;
    await expect(h.get(GetToken).execute({})).rejects.toThrow(/session expired/);
    expect(h.notifier.warnings[0]).toMatch(/HTTP 503/);
    expect(new NetworkError('x', 'y').kind).toBe('Network');
  });

  it('expired or expiring with an empty refresh token: session expired, no network', async () => {
    const h = skiffTestbed();
    for (const seconds of [30, -30]) {
      h.cache.records.set('example.com', expiringIn(seconds, { refreshToken: '' }));
      await expect(h.get(GetToken).execute({})).rejects.toThrow(/session expired/);
    }
    expect(h.provider.tokenCalls).toHaveLength(0);
    expect(h.notifier.warnings).toHaveLength(0);
  });

  it('re-reads the cache once the lock is held: another process refreshed meanwhile, no second refresh', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', expiringIn(-10));
    h.lock.onAcquire = () => {
      h.cache.records.set('example.com', aRecord({ accessToken: 'refreshed-elsewhere', refreshToken: 'rotated' }));
    };
    await expect(h.get(GetToken).execute({})).resolves.toBe('refreshed-elsewhere');
    expect(h.provider.tokenCalls).toHaveLength(0);
  });

  it('concurrent callers in one process refresh once', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', expiringIn(-10));
    h.provider.tokenReplies = [{ accessToken: 'access-2', refreshToken: 'refresh-2' }];
    const tokens = await Promise.all(Array.from({ length: 5 }, () => h.get(GetToken).execute({})));
    expect(tokens).toEqual(Array(5).fill('access-2'));
    expect(h.provider.refreshes).toBe(1);
  });

  it('uses the file of --domain, else of the context', async () => {
    const h = skiffTestbed();
    h.cache.records.set('other.org', aRecord({ accessToken: 'other', domain: 'other.org' }));
    h.cache.records.set('example.com', aRecord());
    await expect(h.get(GetToken).execute({ domain: 'other.org' })).resolves.toBe('other');
    await expect(h.get(GetToken).execute({})).resolves.toBe('access-1');
  });

  it('never puts a token in its errors or warnings', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', expiringIn(-10));
    h.provider.tokenReplies = [401];
    h.provider.failureBody = 'nope';
    const err = (await h
      .get(GetToken)
      .execute({})
      .catch((e: unknown) => e)) as Error;
    for (const text of [err.message, ...h.notifier.warnings]) {
      expect(text).not.toContain('refresh-1');
      expect(text).not.toContain('access-1');
    }
  });
});
