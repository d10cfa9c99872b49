import { scopeOf } from '../../../../src/application/login/auth/auth-scope';
import { cachedGitCredential } from '../../../../src/application/login/auth/cached-git-credential';
import { cachedTokens } from '../../../../src/application/login/auth/cached-token';
import { GetToken } from '../../../../src/application/login/auth/get-token.use-case';
import { GitCredential } from '../../../../src/application/login/auth/git-credential.use-case';
import { configWith, skiffTestbed } from '../../../../src/infrastructure/login/testing/skiff-testbed';
import { expiringIn } from '../../../support/tokens';

/**
 * The read paths (infrastructure/entry/auth-read.ts, git-credential-read.ts) run the use
 * cases' own first steps: whatever a first step answers, the use case answers the same
 * without going further (no lock, no network, no notice); what it leaves, the use case
 * handles.
 */
describe("the read paths' first steps are the use cases' own", () => {
  it('GetToken: a record valid now is the answer of both, untouched; one expiring is left to the refresh', async () => {
    const h = skiffTestbed();
    const ports = { cache: h.cache, clock: h.clock };
    const scope = scopeOf(await h.configStore.load(), {});
    h.cache.records.set('example.com', expiringIn(61));
    const first = await cachedTokens(ports, scope);
    expect(first.valid?.accessToken).toBe('access-1');
    await expect(h.get(GetToken).execute({})).resolves.toBe('access-1');
    expect([h.lock.acquisitions, h.provider.tokenCalls.length]).toEqual([0, 0]);

    h.cache.records.set('example.com', expiringIn(59));
    expect((await cachedTokens(ports, scope)).valid).toBeUndefined();
    h.cache.markCorrupt('example.com');
    expect(await cachedTokens(ports, scope)).toEqual({ read: { problem: expect.any(Error) } });
  });

  const request = (host: string) => `protocol=https\nhost=${host}\npath=team/app.git\n\n`;
  it('GitCredential: store, erase and a get for the named domain are the answer of both; the rest is left, with its notice', async () => {
    const h = skiffTestbed(configWith({ name: 'local', domain: 'example.com' }));
    h.signIn({ giteaToken: 'git-1' });
    const ports = { config: h.configStore, cache: h.cache };
    const cases = [
      { target: {}, operation: 'get' as const, request: request('src.example.com') },
      { target: {}, operation: 'store' as const, request: request('src.example.com') },
      { target: { domain: 'example.com' }, operation: 'erase' as const, request: request('elsewhere.test') },
    ];
    for (const input of cases) {
      const first = await cachedGitCredential(ports, input);
      expect(first.reply).toBeDefined();
      await expect(h.get(GitCredential).execute(input)).resolves.toBe(first.reply);
    }
    expect(h.notifier.all).toBe('');

    const elsewhere = { target: {}, operation: 'get' as const, request: request('elsewhere.test') };
    expect((await cachedGitCredential(ports, elsewhere)).reply).toBeUndefined();
    await expect(h.get(GitCredential).execute(elsewhere)).resolves.toBe('');
    expect(h.notifier.all).toContain('skiff answers for https://src.example.com only');
  });
});
