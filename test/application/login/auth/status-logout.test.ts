import { Logout, REVOKE_BUDGET_MS } from '../../../../src/application/login/auth/logout.use-case';
import { Status } from '../../../../src/application/login/auth/status.use-case';
import { skiffTestbed } from '../../../../src/infrastructure/login/testing/skiff-testbed';
import { aRecord, expiringIn } from '../../../support/tokens';
import { waitFor } from '../../../support/wait-for';

describe('status', () => {
  it('reports the facts of the active domain', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', expiringIn(-5));
    await expect(h.get(Status).execute({})).resolves.toMatchObject({
      loggedIn: true,
      expired: true,
      refreshOnNextUse: true,
      domain: 'example.com',
    });
  });

  it('not logged in is not an error; an unreadable cache is reported with its path', async () => {
    const h = skiffTestbed();
    await expect(h.get(Status).execute({})).resolves.toEqual({ loggedIn: false });
    h.cache.markCorrupt('example.com');
    await expect(h.get(Status).execute({})).resolves.toMatchObject({
      loggedIn: false,
      problem: expect.stringContaining('/fake/auth/example.com.json'),
    });
  });
});

describe('logout (state table)', () => {
  it('cache file exists: removed, logged out; the refresh token is revoked when discovery lists an endpoint', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', aRecord());
    h.boardCredentials.records.set('example.com', { boardToken: 'b' });
    h.provider.metadata = { ...h.provider.metadata, revocationEndpoint: 'https://auth.example.com/revoke' };
    await expect(h.get(Logout).execute({})).resolves.toEqual({ loggedOut: true, domain: 'example.com', revoked: true });
    expect(h.cache.records.size).toBe(0);
    expect(h.boardCredentials.records.size).toBe(0);
    expect(h.provider.revocations).toEqual([{ endpoint: 'https://auth.example.com/revoke', token: 'refresh-1' }]);
  });

  it('no revocation endpoint: still logged out', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', aRecord());
    await expect(h.get(Logout).execute({})).resolves.toMatchObject({ loggedOut: true, revoked: false });
    expect(h.provider.revocations).toHaveLength(0);
  });

  it('an unreachable provider never blocks the local logout (warned, bounded)', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', aRecord());
    h.provider.discoveryStatus = 502;
    await expect(h.get(Logout).execute({})).resolves.toMatchObject({ loggedOut: true, revoked: false });
    expect(h.notifier.warnings[0]).toMatch(/not revoked.*502/);
  });

  it('a silent provider: logout ends after the revocation budget', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', aRecord());
    h.provider.hangDiscovery = true;
    const run = h.get(Logout).execute({});
    await waitFor('logout to wait on the revocation', () => h.clock.pendingSleeps > 0);
    expect(h.cache.records.size).toBe(0);
    h.clock.advance(REVOKE_BUDGET_MS);
    await expect(run).resolves.toMatchObject({ loggedOut: true, revoked: false });
  });

  it('no cache file: not logged in, not an error, no network', async () => {
    const h = skiffTestbed();
    await expect(h.get(Logout).execute({})).resolves.toMatchObject({ loggedOut: false, revoked: false });
    expect(h.provider.discoveries).toHaveLength(0);
  });

  it('an unreadable cache file is removed too', async () => {
    const h = skiffTestbed();
    h.cache.markCorrupt('example.com');
    await expect(h.get(Logout).execute({})).resolves.toMatchObject({ loggedOut: true });
    await expect(h.cache.read('example.com')).resolves.toBeUndefined();
  });
});
