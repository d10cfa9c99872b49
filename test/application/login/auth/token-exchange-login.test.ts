import { GetToken } from '../../../../src/application/login/auth/get-token.use-case';
import { TokenExchangeLogin } from '../../../../src/application/login/auth/token-exchange-login.use-case';
import { AuthTokens } from '../../../../src/domain/login/auth/auth-tokens';
import { JWT_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT } from '../../../../src/domain/login/auth/token-exchange';
import { ConfigurationError, IdentityError } from '../../../../src/domain/shared/errors';
import { SkiffTestbed, skiffTestbed } from '../../../../src/infrastructure/login/testing/skiff-testbed';
import { NOW } from '../../../support/tokens';

const CI_TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJyZXBvOmNpIn0.c2lnbmF0dXJl';

function exchangeProvider(): SkiffTestbed {
  const h = skiffTestbed();
  h.provider.metadata = { ...h.provider.metadata, grantTypesSupported: ['authorization_code', TOKEN_EXCHANGE_GRANT] };
  h.subjectTokens.files.set('/run/ci/token', `${CI_TOKEN}\n`);
  return h;
}

const login = (h: SkiffTestbed, input: Partial<Parameters<TokenExchangeLogin['execute']>[0]> = {}) =>
  h.get(TokenExchangeLogin).execute({ target: {}, subjectTokenFile: '/run/ci/token', ...input });

describe('TokenExchangeLogin: auth login --subject-token-file', () => {
  it('reads the subject token, discovers, exchanges it as skiff-cli for an access token, caches its file, never the token', async () => {
    const h = exchangeProvider();
    h.provider.tokenReplies = [{ accessToken: 'platform-1', expiresIn: 300, refreshToken: 'r', idToken: 'i' }];
    await expect(login(h)).resolves.toEqual({ domain: 'example.com', subjectTokenFile: '/run/ci/token' });
    expect(h.provider.tokenCalls).toEqual([
      {
        grant: 'token_exchange',
        endpoint: 'https://auth.example.com/token',
        request: { clientId: 'skiff-cli', subjectToken: CI_TOKEN, subjectTokenType: JWT_TOKEN_TYPE },
      },
    ]);
    const record = h.cache.records.get('example.com') as AuthTokens;
    expect(record).toMatchObject({
      accessToken: 'platform-1',
      refreshToken: '',
      clientId: 'skiff-cli',
      subjectTokenFile: '/run/ci/token',
      subjectTokenType: JWT_TOKEN_TYPE,
    });
    expect(record.idToken).toBeUndefined();
    expect(record.signInKind()).toBe('token-exchange');
    expect(JSON.stringify(record)).not.toContain(CI_TOKEN);
  });

  it('--client-id and --subject-token-type are sent and kept; a relative file is kept absolute', async () => {
    const h = exchangeProvider();
    h.subjectTokens.files.set('/home/robot/token', 'x.y.z');
    h.provider.tokenReplies = [{ accessToken: 'platform-1' }];
    const type = 'urn:ietf:params:oauth:token-type:id_token';
    await login(h, { subjectTokenFile: 'token', clientId: 'ci-exchanger', subjectTokenType: type });
    expect(h.provider.tokenCalls[0]).toMatchObject({
      request: { clientId: 'ci-exchanger', subjectToken: 'x.y.z', subjectTokenType: type },
    });
    expect(h.cache.records.get('example.com')).toMatchObject({
      clientId: 'ci-exchanger',
      subjectTokenFile: '/home/robot/token',
      subjectTokenType: type,
    });
  });

  it('a missing or empty subject token file: a configuration error before any request, nothing cached', async () => {
    const h = exchangeProvider();
    h.subjectTokens.files.set('/run/ci/empty', '\n');
    for (const file of ['/nope', '/run/ci/empty']) {
      const err = await login(h, { subjectTokenFile: file }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigurationError);
      expect((err as ConfigurationError).code).toBe('AUTH.SUBJECT_TOKEN_UNREADABLE');
    }
    expect(h.provider.discoveries).toEqual([]);
    expect(h.cache.records.size).toBe(0);
  });

  it('a bad --subject-token-type: a configuration error before the file is read', async () => {
    const h = exchangeProvider();
    await expect(login(h, { subjectTokenType: 'jwt' })).rejects.toMatchObject({ code: 'AUTH.SUBJECT_TOKEN_TYPE' });
    expect(h.subjectTokens.reads).toEqual([]);
  });

  it('the grant not offered: a configuration error, no token request; refused: an identity error without the token; nothing cached', async () => {
    const h = exchangeProvider();
    h.provider.metadata = { ...h.provider.metadata, grantTypesSupported: ['authorization_code'] };
    await expect(login(h)).rejects.toMatchObject({ code: 'AUTH.TOKEN_EXCHANGE_NOT_OFFERED' });
    expect(h.provider.tokenCalls).toEqual([]);
    h.provider.metadata = { ...h.provider.metadata, grantTypesSupported: [TOKEN_EXCHANGE_GRANT] };
    for (const error of ['invalid_grant', 'invalid_request']) {
      h.provider.tokenReplies = [400];
      h.provider.failureBody = `{"error":"${error}","subject_token":"${CI_TOKEN}"}`;
      const err = await login(h).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IdentityError);
      expect((err as Error).message).toContain(error);
      expect((err as Error).message).not.toContain(CI_TOKEN);
    }
    expect(h.cache.records.size).toBe(0);
  });
});

describe("GetToken for a token exchange's record", () => {
  const exchanged = (expiresIn: number) =>
    AuthTokens.fromTokenExchange({ accessToken: 'platform-1', expiresIn }, 'example.com', NOW, {
      clientId: 'skiff-cli',
      subjectTokenFile: '/run/ci/token',
      subjectTokenType: JWT_TOKEN_TYPE,
    });

  it('valid: the cached token, no file read, no request', async () => {
    const h = exchangeProvider();
    h.cache.records.set('example.com', exchanged(600));
    await expect(h.get(GetToken).execute({})).resolves.toBe('platform-1');
    expect(h.subjectTokens.reads).toEqual([]);
    expect(h.provider.tokenCalls).toEqual([]);
  });

  it('expiring: the file read again (rotated) and exchanged under the lock, written, the subject kept', async () => {
    const h = exchangeProvider();
    h.cache.records.set('example.com', exchanged(30));
    h.subjectTokens.files.set('/run/ci/token', 'rotated.ci.token');
    h.provider.tokenReplies = [{ accessToken: 'platform-2', expiresIn: 600 }];
    await expect(h.get(GetToken).execute({})).resolves.toBe('platform-2');
    expect(h.lock.acquisitions).toBe(1);
    expect(h.provider.tokenCalls).toEqual([
      expect.objectContaining({
        grant: 'token_exchange',
        request: expect.objectContaining({ subjectToken: 'rotated.ci.token' }),
      }),
    ]);
    expect(h.cache.records.get('example.com')).toMatchObject({
      accessToken: 'platform-2',
      subjectTokenFile: '/run/ci/token',
      subjectTokenType: JWT_TOKEN_TYPE,
    });
  });

  it('two commands on an expired token: one exchange, both get its token', async () => {
    const h = exchangeProvider();
    h.cache.records.set('example.com', exchanged(0));
    h.provider.tokenReplies = [{ accessToken: 'platform-2', expiresIn: 600 }];
    const both = await Promise.all([h.get(GetToken).execute({}), h.get(GetToken).execute({})]);
    expect(both).toEqual(['platform-2', 'platform-2']);
    expect(h.provider.tokenCalls).toHaveLength(1);
  });

  it('expiring and the file gone, or the exchange refused: that one line, the cache unchanged', async () => {
    const h = exchangeProvider();
    const record = exchanged(30);
    h.cache.records.set('example.com', record);
    h.subjectTokens.files.clear();
    await expect(h.get(GetToken).execute({})).rejects.toThrow('the subject token file /run/ci/token does not exist');
    h.subjectTokens.files.set('/run/ci/token', CI_TOKEN);
    h.provider.tokenReplies = [400];
    await expect(h.get(GetToken).execute({})).rejects.toBeInstanceOf(IdentityError);
    expect(h.cache.records.get('example.com')).toBe(record);
    expect(h.notifier.warnings).toEqual([]);
  });
});
