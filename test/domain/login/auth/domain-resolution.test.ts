import { acceptDiscovered, resolveDomain } from '../../../../src/domain/login/auth/domain-resolution';
import { ConfigurationError } from '../../../../src/domain/shared/errors';

const never = async (): Promise<string | undefined> => {
  throw new Error('must not be asked');
};

describe('domain resolution order (first match wins)', () => {
  it('1. the --domain flag', async () => {
    await expect(
      resolveDomain({ flag: 'flag.org', context: 'ctx.org', cached: never, discovered: never }),
    ).resolves.toEqual({
      domain: 'flag.org',
      source: 'flag',
    });
  });

  it("2. the active context's domain", async () => {
    await expect(resolveDomain({ flag: '', context: 'ctx.org', cached: never, discovered: never })).resolves.toEqual({
      domain: 'ctx.org',
      source: 'context',
    });
  });

  it('3. the cached record, only when the first two are empty', async () => {
    await expect(resolveDomain({ context: '', cached: async () => 'cached.org', discovered: never })).resolves.toEqual({
      domain: 'cached.org',
      source: 'cache',
    });
  });

  it('4. cluster discovery when the cache has none', async () => {
    await expect(resolveDomain({ cached: async () => '', discovered: async () => 'found.org' })).resolves.toEqual({
      domain: 'found.org',
      source: 'discovery',
    });
  });

  it('refuses a discovered domain that is empty or starts with "."', () => {
    expect(acceptDiscovered('.cluster.local')).toBe(false);
    expect(acceptDiscovered('')).toBe(false);
    expect(acceptDiscovered(undefined)).toBe(false);
    expect(acceptDiscovered('ok.org')).toBe(true);
  });

  it('5. otherwise a configuration error naming --domain and config set --host', async () => {
    const err = await resolveDomain({ cached: async () => undefined, discovered: async () => '.svc' }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigurationError);
    expect((err as Error).message).toContain('--domain');
    expect((err as Error).message).toContain('config set --host');
  });

  it('refuses a domain with whitespace or control characters', async () => {
    await expect(resolveDomain({ flag: 'a b', cached: never, discovered: never })).rejects.toBeInstanceOf(
      ConfigurationError,
    );
    await expect(resolveDomain({ context: 'a\nb', cached: never, discovered: never })).rejects.toBeInstanceOf(
      ConfigurationError,
    );
  });
});
