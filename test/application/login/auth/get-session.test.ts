import { GetSession } from '../../../../src/application/login/auth/get-session.use-case';
import { ConfigurationError, IdentityError } from '../../../../src/domain/shared/errors';
import { configWith, skiffTestbed } from '../../../../src/infrastructure/login/testing/skiff-testbed';
import { aRecord, expiringIn } from '../../../support/tokens';

/** The session a plugin's command gets (skiff-cli/plugin: SkiffCommand.session). */
describe('GetSession', () => {
  const dev = { name: 'dev', domain: 'dev.example.com', identityProviderUrl: 'http://127.0.0.1:5556' };

  it('the active context, its domain, its URLs with the overrides, a valid token and who it is', async () => {
    const h = skiffTestbed(configWith(dev));
    h.cache.records.set('dev.example.com', aRecord({ domain: 'dev.example.com' }));
    await expect(h.get(GetSession).execute({})).resolves.toEqual({
      context: 'dev',
      domain: 'dev.example.com',
      urls: {
        identityProvider: 'http://127.0.0.1:5556',
        gitHost: 'https://src.dev.example.com',
        boards: 'https://projects.dev.example.com/api',
      },
      accessToken: 'access-1',
      expiresAt: aRecord().expiresAt,
      identity: 'alice@example.com',
      tokenType: 'Bearer',
      authorization: expect.any(Function),
    });
  });

  it('an expiring token is refreshed once, under the lock, and the refreshed record is the session', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', expiringIn(30));
    h.provider.tokenReplies.push({ accessToken: 'access-2', expiresIn: 3600 });
    const session = await h.get(GetSession).execute({});
    expect(session.accessToken).toBe('access-2');
    expect(session.identity).toBe('alice@example.com');
    expect(h.provider.refreshes).toBe(1);
    expect(h.lock.acquisitions).toBe(1);
  });

  it('--domain without a context: no context, the URLs of that domain, its cache file', async () => {
    const h = skiffTestbed(configWith());
    h.cache.records.set('other.org', aRecord({ domain: 'other.org', idToken: undefined }));
    const session = await h.get(GetSession).execute({ domain: 'other.org' });
    expect(session).toMatchObject({ context: undefined, domain: 'other.org', identity: undefined });
    expect(session.urls.identityProvider).toBe('https://auth.other.org');
  });

  it('no domain anywhere is a configuration error; not signed in is an identity error', async () => {
    await expect(skiffTestbed(configWith()).get(GetSession).execute({})).rejects.toBeInstanceOf(ConfigurationError);
    await expect(skiffTestbed().get(GetSession).execute({})).rejects.toBeInstanceOf(IdentityError);
  });
});
