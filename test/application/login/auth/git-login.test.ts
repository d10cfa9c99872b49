import { GetGiteaToken } from '../../../../src/application/login/auth/get-gitea-token.use-case';
import { GitLogin } from '../../../../src/application/login/auth/git-login.use-case';
import { SetGiteaToken } from '../../../../src/application/login/auth/set-gitea-token.use-case';
import { IdentityError } from '../../../../src/domain/shared/errors';
import { skiffTestbed } from '../../../../src/infrastructure/login/testing/skiff-testbed';
import { aRecord, NOW } from '../../../support/tokens';

describe('git login (git steps 1-4)', () => {
  it('step 1: prints the token page, advises all scopes, tries the browser', async () => {
    const h = skiffTestbed();
    h.prompt.answer = 'git-token-1';
    await h.get(GitLogin).execute({ target: {}, openBrowser: true });
    expect(h.notifier.all).toContain('https://src.example.com/user/settings/applications');
    expect(h.notifier.all).toMatch(/all scopes/);
    expect(h.browser.opened).toEqual(['https://src.example.com/user/settings/applications']);
  });

  it('step 2: the input is trimmed; empty input is an identity error "no token provided"', async () => {
    const h = skiffTestbed();
    h.prompt.answer = '  git-token-1 \n';
    await expect(h.get(GitLogin).execute({ target: {}, openBrowser: false })).resolves.toMatchObject({
      login: 'alice',
    });
    expect(h.gitHost.calls[0].token).toBe('git-token-1');
    h.prompt.answer = '   ';
    const err = await h
      .get(GitLogin)
      .execute({ target: {}, openBrowser: false })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IdentityError);
    expect((err as Error).message).toMatch(/no token provided/);
  });

  it('step 3: verified at https://src.<domain>; a rejected token is an identity error stating the status, nothing stored', async () => {
    const h = skiffTestbed();
    h.prompt.answer = 'wrong';
    h.gitHost.rejectStatus = 403;
    const err = (await h
      .get(GitLogin)
      .execute({ target: {}, openBrowser: false })
      .catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(IdentityError);
    expect(err.message).toMatch(/invalid token.*403/);
    expect(err.message).not.toContain('wrong');
    expect(h.gitHost.calls[0].baseUrl).toBe('https://src.example.com');
    expect(h.cache.writes).toBe(0);
  });

  it("step 3: shows the reply's login, or unknown", async () => {
    const h = skiffTestbed();
    h.prompt.answer = 'git-token-1';
    h.gitHost.login = undefined;
    await expect(h.get(GitLogin).execute({ target: {}, openBrowser: false })).resolves.toMatchObject({
      login: 'unknown',
    });
  });

  it('step 4 / state table: with a cache, gitea_token is set and everything else unchanged', async () => {
    const h = skiffTestbed();
    const before = aRecord();
    h.cache.records.set('example.com', before);
    h.prompt.answer = 'git-token-1';
    await h.get(GitLogin).execute({ target: {}, openBrowser: false });
    const after = h.cache.records.get('example.com');
    expect(after).toMatchObject({
      accessToken: before.accessToken,
      refreshToken: before.refreshToken,
      idToken: before.idToken,
      giteaToken: 'git-token-1',
    });
    expect(after?.expiresAt).toEqual(before.expiresAt);
  });

  it('step 4: without a cache, starts from empty tokens expiring now with the resolved domain', async () => {
    const h = skiffTestbed();
    h.prompt.answer = 'git-token-1';
    await h.get(GitLogin).execute({ target: {}, openBrowser: false });
    const record = h.cache.records.get('example.com');
    expect(record).toMatchObject({
      accessToken: '',
      refreshToken: '',
      domain: 'example.com',
      giteaToken: 'git-token-1',
    });
    expect(record?.expiresAt).toEqual(NOW);
    expect(record?.idToken).toBeUndefined();
  });

  it('step 4: sets the domain only when the record has none', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', aRecord({ domain: '' }));
    await h.get(SetGiteaToken).execute({ target: {}, token: 'git-token-1' });
    expect(h.cache.records.get('example.com')?.domain).toBe('example.com');
  });

  it('step 4: an unreadable cache is replaced, with a warning naming it', async () => {
    const h = skiffTestbed();
    h.cache.markCorrupt('example.com');
    await h.get(SetGiteaToken).execute({ target: {}, token: 'git-token-1' });
    expect(h.notifier.warnings[0]).toContain('/fake/auth/example.com.json');
    expect(h.cache.records.get('example.com')?.giteaToken).toBe('git-token-1');
  });

  it('set-gitea-token verifies before saving, like git login', async () => {
    const h = skiffTestbed();
    await expect(h.get(SetGiteaToken).execute({ target: {}, token: 'bad' })).rejects.toBeInstanceOf(IdentityError);
    expect(h.cache.writes).toBe(0);
  });
});

describe('get_gitea_token (git step 5)', () => {
  it('no cache: identity error advising login', async () => {
    const h = skiffTestbed();
    await expect(h.get(GetGiteaToken).execute({})).rejects.toThrow(/not logged in.*skiff auth login/);
  });

  it('cache without gitea_token: identity error advising login or the set-token command', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', aRecord());
    const err = (await h
      .get(GetGiteaToken)
      .execute({})
      .catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(IdentityError);
    expect(err.message).toContain('skiff auth git');
    expect(err.message).toContain('skiff auth set-gitea-token');
  });

  it('returns the stored token', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', aRecord({ giteaToken: 'git-token-1' }));
    await expect(h.get(GetGiteaToken).execute({})).resolves.toBe('git-token-1');
  });
});
