import { GetToken } from '../../../../src/application/login/auth/get-token.use-case';
import { RobotLogin } from '../../../../src/application/login/auth/robot-login.use-case';
import { AuthTokens } from '../../../../src/domain/login/auth/auth-tokens';
import { ConfigurationError, IdentityError } from '../../../../src/domain/shared/errors';
import { SkiffTestbed, skiffTestbed } from '../../../../src/infrastructure/login/testing/skiff-testbed';
import { NOW } from '../../../support/tokens';

function robotProvider(methods?: string[]): SkiffTestbed {
  const h = skiffTestbed();
  h.provider.metadata = {
    ...h.provider.metadata,
    grantTypesSupported: ['authorization_code', 'client_credentials'],
    ...(methods === undefined ? {} : { tokenEndpointAuthMethodsSupported: methods }),
  };
  h.clientSecrets.files.set('/run/secrets/robot', 's3cret');
  return h;
}

describe('RobotLogin: auth login --client-id', () => {
  it('reads the secret, discovers, sends the grant with client_secret_basic, caches the client without the secret', async () => {
    const h = robotProvider(['client_secret_basic', 'client_secret_post']);
    h.provider.tokenReplies = [{ accessToken: 'robot-1', expiresIn: 300, idToken: 'ignored' }];
    await expect(
      h.get(RobotLogin).execute({ target: {}, clientId: 'ci', clientSecretFile: '/run/secrets/robot' }),
    ).resolves.toEqual({ domain: 'example.com', clientId: 'ci' });
    expect(h.provider.tokenCalls).toEqual([
      {
        grant: 'client_credentials',
        endpoint: 'https://auth.example.com/token',
        request: { clientId: 'ci', clientSecret: 's3cret', authMethod: 'client_secret_basic' },
      },
    ]);
    const record = h.cache.records.get('example.com') as AuthTokens;
    expect(record).toMatchObject({
      accessToken: 'robot-1',
      refreshToken: '',
      clientId: 'ci',
      clientSecretFile: '/run/secrets/robot',
    });
    expect(record.idToken).toBeUndefined();
    expect(record.signInKind()).toBe('client-credentials');
    expect(JSON.stringify(record)).not.toContain('s3cret');
  });

  it('a relative secret file is kept as an absolute path; client_secret_post when basic is not listed', async () => {
    const h = robotProvider(['none', 'client_secret_post']);
    h.clientSecrets.files.set('/home/robot/robot.secret', 'x');
    h.provider.tokenReplies = [{ accessToken: 'robot-1' }];
    await h.get(RobotLogin).execute({ target: {}, clientId: 'ci', clientSecretFile: 'robot.secret' });
    expect(h.cache.records.get('example.com')?.clientSecretFile).toBe('/home/robot/robot.secret');
    expect(h.provider.tokenCalls[0]).toMatchObject({ request: { authMethod: 'client_secret_post' } });
  });

  it('without a file: the environment secret, and no file kept', async () => {
    const h = robotProvider();
    h.clientSecrets.env = 'from-env';
    h.provider.tokenReplies = [{ accessToken: 'robot-1' }];
    await h.get(RobotLogin).execute({ target: {}, clientId: 'ci' });
    expect(h.provider.tokenCalls[0]).toMatchObject({ request: { clientSecret: 'from-env' } });
    expect(h.cache.records.get('example.com')?.clientSecretFile).toBeUndefined();
  });

  it('an unreadable secret: a configuration error before any request, nothing cached', async () => {
    const h = robotProvider();
    const err = await h
      .get(RobotLogin)
      .execute({ target: {}, clientId: 'ci', clientSecretFile: '/nope' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigurationError);
    expect(h.provider.discoveries).toEqual([]);
    expect(h.cache.records.size).toBe(0);
  });

  it('the grant not offered: a configuration error, no token request; refused: an identity error; nothing cached', async () => {
    const h = robotProvider();
    h.provider.metadata = { ...h.provider.metadata, grantTypesSupported: ['authorization_code'] };
    const input = { target: {}, clientId: 'ci', clientSecretFile: '/run/secrets/robot' };
    await expect(h.get(RobotLogin).execute(input)).rejects.toBeInstanceOf(ConfigurationError);
    expect(h.provider.tokenCalls).toEqual([]);
    h.provider.metadata = { ...h.provider.metadata, grantTypesSupported: ['client_credentials'] };
    h.provider.tokenReplies = [401];
    h.provider.failureBody = '{"error":"invalid_client"}';
    await expect(h.get(RobotLogin).execute(input)).rejects.toBeInstanceOf(IdentityError);
    expect(h.cache.records.size).toBe(0);
  });
});

describe("GetToken for a robot's record", () => {
  const robotRecord = (expiresIn: number) =>
    AuthTokens.fromClientCredentials({ accessToken: 'robot-1', expiresIn }, 'example.com', NOW, {
      clientId: 'ci',
      clientSecretFile: '/run/secrets/robot',
    });

  it('valid: the cached token, no request', async () => {
    const h = robotProvider();
    h.cache.records.set('example.com', robotRecord(600));
    await expect(h.get(GetToken).execute({})).resolves.toBe('robot-1');
    expect(h.provider.tokenCalls).toEqual([]);
  });

  it('expiring: obtained again the same way under the lock, written, the client kept', async () => {
    const h = robotProvider();
    h.cache.records.set('example.com', robotRecord(30));
    h.provider.tokenReplies = [{ accessToken: 'robot-2', expiresIn: 600 }];
    await expect(h.get(GetToken).execute({})).resolves.toBe('robot-2');
    expect(h.provider.tokenCalls).toHaveLength(1);
    expect(h.provider.tokenCalls[0]).toMatchObject({
      grant: 'client_credentials',
      request: { clientSecret: 's3cret' },
    });
    expect(h.cache.records.get('example.com')).toMatchObject({
      accessToken: 'robot-2',
      clientId: 'ci',
      clientSecretFile: '/run/secrets/robot',
    });
  });

  it("expiring and the secret gone: the secret's error, the cache unchanged", async () => {
    const h = robotProvider();
    h.clientSecrets.files.clear();
    const record = robotRecord(30);
    h.cache.records.set('example.com', record);
    await expect(h.get(GetToken).execute({})).rejects.toThrow(/client secret file \/run\/secrets\/robot/);
    expect(h.cache.records.get('example.com')).toBe(record);
  });
});
