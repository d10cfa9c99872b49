import { DeleteContext } from '../../../../src/application/login/contexts/delete-context.use-case';
import { GetContexts } from '../../../../src/application/login/contexts/get-contexts.use-case';
import { SetContext } from '../../../../src/application/login/contexts/set-context.use-case';
import { SetHost } from '../../../../src/application/login/contexts/set-host.use-case';
import { UseContext } from '../../../../src/application/login/contexts/use-context.use-case';
import { ViewConfig } from '../../../../src/application/login/contexts/view-config.use-case';
import { ConfigurationError } from '../../../../src/domain/shared/errors';
import { skiffTestbed } from '../../../../src/infrastructure/login/testing/skiff-testbed';

describe('config use cases', () => {
  it('set --host, set-context, use-context, get-contexts, delete-context, view', async () => {
    const h = skiffTestbed({ contexts: [] });
    await expect(h.get(SetHost).execute('example.com')).resolves.toEqual({ context: 'local' });
    await expect(
      h.get(SetContext).execute('dev', { domain: 'dev.org', identityProviderUrl: 'http://127.0.0.1:1' }),
    ).resolves.toMatchObject({ created: true });
    await expect(h.get(GetContexts).execute()).resolves.toMatchObject({ current: 'local' });
    await h.get(UseContext).execute('dev');
    await expect(h.get(GetContexts).execute()).resolves.toMatchObject({
      current: 'dev',
      contexts: [{ name: 'local' }, { name: 'dev' }],
    });
    await h.get(DeleteContext).execute('dev');
    await expect(h.get(GetContexts).execute()).resolves.toMatchObject({ current: 'local' });
    await expect(h.get(ViewConfig).execute()).resolves.toMatchObject({ location: '/fake/config.yaml' });
  });

  it('refuses an unusable domain', async () => {
    const h = skiffTestbed({ contexts: [] });
    await expect(h.get(SetHost).execute('bad domain')).rejects.toBeInstanceOf(ConfigurationError);
    await expect(h.get(SetHost).execute('')).rejects.toThrow(/^--host needs a domain/);
    await expect(h.get(SetContext).execute('x', { domain: 'a\tb' })).rejects.toBeInstanceOf(ConfigurationError);
    expect(h.configStore.saves).toBe(0);
  });
});
