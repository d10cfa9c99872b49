import { FakeSecretStore } from '../../../../../src/adapters/fakes/login/fake-secret-store';
import { secretStoreContract } from '../../../../contract/login/secret-store.contract';
import { keyringTestsRunHere, KeyringSession, NO_BUS, OsKeyringInChild } from '../../../../support/keyring-session';

secretStoreContract(
  'FakeSecretStore',
  async () => {
    const store = new FakeSecretStore();
    return {
      store,
      makeUnavailable: () => (store.unavailable = 'no Secret Service'),
      cleanup: async () => undefined,
    };
  },
  { unreachable: true },
);

describe('OsKeyringSecretStore where no keyring answers', () => {
  it.each([
    ['no DBUS_SESSION_BUS_ADDRESS', undefined],
    ['a bus address where nothing listens', NO_BUS],
  ])('%s: one line, the keyring is not available, how to keep the tokens in the file; no fallback', async (_, bus) => {
    const store = new OsKeyringInChild(bus);
    const err = (await store.set('auth/x/1/access_token/0', 'never-shown').catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/^the OS keyring is not available \(.+\): .*`skiff config set --token-store file`$/);
    expect(err.message).not.toContain('never-shown');
    // Never the kernel keyring instead (it forgets at reboot): reading fails the same way.
    await expect(store.get('auth/x/1/access_token/0')).rejects.toThrow(/^the OS keyring is not available/);
  });
});

if (keyringTestsRunHere()) {
  describe('the OS keyring: gnome-keyring-daemon in a D-Bus session of its own', () => {
    let session: KeyringSession;
    beforeAll(async () => (session = await KeyringSession.start()), 30_000);
    afterAll(() => session.stop());

    secretStoreContract(
      'OsKeyringSecretStore (unlocked)',
      async () => ({ store: new OsKeyringInChild(session.address), cleanup: async () => undefined }),
      { unreachable: false },
    );

    it('files the entries under the service skiff, as another Secret Service client sees them', async () => {
      const store = new OsKeyringInChild(session.address);
      await store.set('auth/seen/1/access_token/0', 'v');
      expect(session.accounts()).toContain('auth/seen/1/access_token/0');
      await store.delete('auth/seen/1/access_token/0');
      expect(session.accounts()).not.toContain('auth/seen/1/access_token/0');
    });

    it('a locked collection with no display to prompt on: the keyring is not available, in one line', async () => {
      const locked = await KeyringSession.start({ unlocked: false });
      try {
        const err = (await new OsKeyringInChild(locked.address)
          .set('a', 'never-shown')
          .catch((e: unknown) => e)) as Error;
        expect(err.message).toMatch(/^the OS keyring is not available \(.*\): /);
        expect(err.message).not.toContain('never-shown');
      } finally {
        await locked.stop();
      }
    });
  });
}
