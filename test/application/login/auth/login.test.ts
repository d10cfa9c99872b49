import { AuthScopes } from '../../../../src/application/login/auth/auth-scopes';
import { Login } from '../../../../src/application/login/auth/login.use-case';
import { skiffTestbed } from '../../../../src/infrastructure/login/testing/skiff-testbed';
import { aRecord, idToken, issueWithNonce } from '../../../support/tokens';

describe('auth login', () => {
  it('resolves the domain once, SSO with the redirect to the git token page, then git login for the same domain', async () => {
    const h = skiffTestbed({ contexts: [] });
    h.cache.records.set('', aRecord({ domain: 'cached.org' }));
    h.provider.tokenReplies = [{ accessToken: 'a', idToken: idToken({ email: 'alice@example.com' }) }];
    h.browser.onOpen = (url) => {
      issueWithNonce(h.provider, url);
      h.listener.deliver(`/callback?code=c&state=${new URL(url).searchParams.get('state')}`);
    };
    h.prompt.answer = 'git-token-1';
    const result = await h.get(Login).execute({ target: {}, openBrowser: true });
    expect(result.sso).toEqual({ domain: 'cached.org', email: 'alice@example.com' });
    expect(result.git).toEqual({ domain: 'cached.org', login: 'alice' });
    expect(h.listener.replies[0]).toEqual({
      kind: 'success',
      redirectTo: 'https://src.cached.org/user/settings/applications',
    });
    expect(h.gitHost.calls[0].baseUrl).toBe('https://src.cached.org');
    // The callback page already took the browser to the token page: not opened a second time.
    expect(h.browser.opened).toHaveLength(1);
    expect(h.notifier.all).toContain('https://src.cached.org/user/settings/applications');
    expect(h.notifier.infos.filter((l) => /from the token cache/.test(l))).toHaveLength(1);
    expect(h.cache.records.get('')).toMatchObject({
      accessToken: 'a',
      giteaToken: 'git-token-1',
      domain: 'cached.org',
    });
  });
});

describe('domain resolution through the ports', () => {
  it('prints a notice when the cached domain is used', async () => {
    const h = skiffTestbed({ contexts: [] });
    h.cache.records.set('', aRecord({ domain: 'cached.org' }));
    const scopes = h.get(AuthScopes);
    await expect(scopes.resolveDomain(await scopes.scope({}))).resolves.toBe('cached.org');
    expect(h.notifier.infos).toEqual(['Using the domain cached.org from the token cache.']);
  });

  it('asks cluster discovery last', async () => {
    const h = skiffTestbed({ contexts: [] });
    h.discovery.domain = 'found.org';
    const scopes = h.get(AuthScopes);
    await expect(scopes.resolveDomain(await scopes.scope({}))).resolves.toBe('found.org');
    expect(h.discovery.calls).toBe(1);
  });

  it('the --domain flag locates the cache file; --context picks the context', async () => {
    const h = skiffTestbed({
      contexts: [
        { name: 'a', domain: 'a.org' },
        { name: 'local', domain: 'l.org' },
      ],
    });
    const scopes = h.get(AuthScopes);
    await expect(scopes.scope({ domain: 'x.org' })).resolves.toMatchObject({ cacheDomain: 'x.org' });
    await expect(scopes.scope({ context: 'a' })).resolves.toMatchObject({ cacheDomain: 'a.org' });
    await expect(scopes.scope({})).resolves.toMatchObject({ cacheDomain: 'l.org' });
  });
});
