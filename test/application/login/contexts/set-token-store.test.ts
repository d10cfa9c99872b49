import { SetTokenStore } from '../../../../src/application/login/contexts/set-token-store.use-case';
import { GetToken } from '../../../../src/application/login/auth/get-token.use-case';
import { TokenCacheError } from '../../../../src/domain/login/auth/auth-errors';
import { ConfigurationError } from '../../../../src/domain/shared/errors';
import { configWith, skiffTestbed } from '../../../../src/infrastructure/login/testing/skiff-testbed';
import { expiringIn } from '../../../support/tokens';

describe('SetTokenStore: config set --token-store', () => {
  it('sets the store of the context in use and moves its record there at once', async () => {
    const h = skiffTestbed();
    const record = h.signIn();
    await expect(h.get(SetTokenStore).execute('keyring')).resolves.toEqual({ context: 'local', moved: 'example.com' });
    expect(h.configStore.config.contexts).toEqual([{ name: 'local', domain: 'example.com', tokenStore: 'keyring' }]);
    expect(h.cache.stores.get('example.com')).toBe('keyring');
    expect(h.cache.records.get('example.com')).toBe(record);
    await h.get(SetTokenStore).execute('file');
    // `file` is the default: not written to the file.
    expect(h.configStore.config.contexts).toEqual([{ name: 'local', domain: 'example.com' }]);
    expect(h.cache.stores.get('example.com')).toBe('file');
  });

  it('no context: `local` is created and made current; nothing to move', async () => {
    const h = skiffTestbed({ contexts: [] });
    await expect(h.get(SetTokenStore).execute('keyring')).resolves.toEqual({ context: 'local' });
    expect(h.configStore.config).toEqual({
      currentContext: 'local',
      contexts: [{ name: 'local', domain: '', tokenStore: 'keyring' }],
    });
  });

  it('the move failing (a keyring that cannot be used): its error, the setting unchanged', async () => {
    const h = skiffTestbed();
    h.signIn();
    const unavailable = new ConfigurationError('the OS keyring is not available (x): ...', 'AUTH.KEYRING_UNAVAILABLE');
    h.cache.write = async () => {
      throw unavailable;
    };
    await expect(h.get(SetTokenStore).execute('keyring')).rejects.toBe(unavailable);
    expect(h.configStore.saves).toBe(0);
  });

  it('a record that cannot be read stays where it is, with a warning; the setting is saved', async () => {
    const h = skiffTestbed();
    h.cache.read = async () => {
      throw new TokenCacheError('/x.json', 'its tokens are in the OS keyring, but ...', 'AUTH.KEYRING_UNAVAILABLE');
    };
    await expect(h.get(SetTokenStore).execute('file')).resolves.toEqual({ context: 'local' });
    expect(h.notifier.warnings).toEqual([
      'the tokens in place were not moved: token cache /x.json: its tokens are in the OS keyring, but ...',
    ]);
    expect(h.configStore.saves).toBe(1);
  });

  it("later writes go to the context's store: a refresh writes the keyring", async () => {
    const h = skiffTestbed(configWith({ name: 'local', domain: 'example.com', tokenStore: 'keyring' }));
    h.cache.records.set('example.com', expiringIn(30));
    h.provider.tokenReplies = [{ accessToken: 'fresh', expiresIn: 600 }];
    await expect(h.get(GetToken).execute({})).resolves.toBe('fresh');
    expect(h.cache.stores.get('example.com')).toBe('keyring');
  });
});
