import { GetToken } from '../../../../src/application/login/auth/get-token.use-case';
import { StatusAll } from '../../../../src/application/login/auth/status-all.use-case';
import { statusListLines } from '../../../../src/adapters/login/inbound/cli/status-list-text';
import { ConfigurationError } from '../../../../src/domain/shared/errors';
import { configWith, skiffTestbed } from '../../../../src/infrastructure/login/testing/skiff-testbed';
import { aRecord, expiringIn } from '../../../support/tokens';

describe('status of every domain (auth status without --domain)', () => {
  it('lists every domain with a cache, the active one first and marked, the others by name', async () => {
    const h = skiffTestbed();
    h.cache.records.set('zeta.org', aRecord({ domain: 'zeta.org' }));
    h.cache.records.set('example.com', expiringIn(-5));
    h.cache.records.set('alpha.org', aRecord({ domain: 'alpha.org', giteaToken: 'g' }));
    const list = await h.get(StatusAll).execute({});
    expect(list.map((d) => [d.name, d.active, d.loggedIn])).toEqual([
      ['example.com', true, true],
      ['alpha.org', false, true],
      ['zeta.org', false, true],
    ]);
    expect(list[0]).toMatchObject({ expired: true, refreshOnNextUse: true });
    expect(list[1]).toMatchObject({ gitToken: true });
    const text = statusListLines(list);
    expect(text[0]).toBe('example.com (active)');
    expect(text[1]).toBe('  Logged in as alice@example.com');
    expect(text).toContain('alpha.org');
    expect(text.join('\n')).not.toContain('access-1');
  });

  it('the active domain is listed even without a cache; --context moves the mark', async () => {
    const h = skiffTestbed({
      currentContext: 'local',
      contexts: [
        { name: 'local', domain: 'example.com' },
        { name: 'other', domain: 'other.org' },
      ],
    });
    h.cache.records.set('other.org', aRecord({ domain: 'other.org' }));
    const list = await h.get(StatusAll).execute({});
    expect(list.map((d) => [d.name, d.active, d.loggedIn])).toEqual([
      ['example.com', true, false],
      ['other.org', false, true],
    ]);
    const moved = await h.get(StatusAll).execute({ context: 'other' });
    expect(moved.map((d) => [d.name, d.active])).toEqual([['other.org', true]]);
  });

  it('no domain anywhere and no cache at all: not logged in, no error (the status output); with caches, they are listed', async () => {
    const h = skiffTestbed(configWith());
    const list = await h.get(StatusAll).execute({});
    expect(list).toEqual([{ name: 'default', active: true, loggedIn: false }]);
    expect(statusListLines(list)).toEqual(['Not logged in: run `skiff auth login`.']);
    // The commands that need a token still stop with the configuration error of "Which domain".
    await expect(h.get(GetToken).execute({})).rejects.toThrow(
      new ConfigurationError(
        'cannot determine the domain: pass --domain <domain> or run `skiff config set --host <domain>`',
        'AUTH.NO_DOMAIN',
      ),
    );
    h.cache.records.set('other.org', aRecord({ domain: 'other.org' }));
    const listed = await h.get(StatusAll).execute({});
    expect(listed.map((d) => [d.name, d.loggedIn])).toContainEqual(['other.org', true]);
  });

  it('one domain reads as `auth status` of that domain always has', async () => {
    const h = skiffTestbed();
    expect(statusListLines(await h.get(StatusAll).execute({}))).toEqual(['Not logged in: run `skiff auth login`.']);
  });
});
