import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cachedAnswer } from '../../../src/infrastructure/entry/auth-read';
import { ReadPathHome } from '../../support/read-path-home';

/**
 * The read path of `auth token` and `auth kube-credential` (entry/auth-read.ts) answers only
 * from a token valid now, and leaves every other case to the auth bundle, whose answers
 * (errors included) test/e2e/login/config-and-fast-path.test.ts holds to the oclif commands'.
 */
describe('auth token and kube-credential from the cache alone', () => {
  let home: ReadPathHome;
  let env: NodeJS.ProcessEnv;
  beforeEach(() => {
    home = new ReadPathHome();
    env = home.env;
  });
  afterEach(() => home.remove());

  it('the token of the active context, of --context, of --domain', async () => {
    expect(await cachedAnswer(['token'], env)).toBe('prod.test-access\n');
    expect(await cachedAnswer(['token', '--context', 'dev'], env)).toBe('dev.test-access\n');
    expect(await cachedAnswer(['token', '--domain=dev.test'], env)).toBe('dev.test-access\n');
  });

  it('--json as `auth token --json` prints it', async () => {
    const json = await cachedAnswer(['token', '--json'], env);
    expect(json?.endsWith('}\n')).toBe(true);
    expect(JSON.parse(json ?? '')).toEqual({
      token: 'prod.test-access',
      expiresAt: '2099-01-01T00:00:00.000Z',
      scopes: ['openid', 'email', 'profile', 'offline_access'],
      signIn: 'person',
      tokenStore: { kind: 'file', path: join(home.authDir, 'prod.test.json') },
    });
  });

  it("kubectl's ExecCredential, in the version KUBERNETES_EXEC_INFO asks for", async () => {
    const info = {
      kind: 'ExecCredential',
      apiVersion: 'client.authentication.k8s.io/v1',
      spec: { interactive: false },
    };
    const v1 = (await cachedAnswer(['kube-credential'], { ...env, KUBERNETES_EXEC_INFO: JSON.stringify(info) })) ?? '';
    expect(JSON.parse(v1)).toEqual({
      kind: 'ExecCredential',
      apiVersion: 'client.authentication.k8s.io/v1',
      spec: { interactive: false },
      status: { token: 'prod.test-access', expirationTimestamp: '2098-12-31T23:59:00Z' },
    });
    const beta = (await cachedAnswer(['kube-credential'], env)) ?? '';
    expect(JSON.parse(beta).apiVersion).toBe('client.authentication.k8s.io/v1beta1');
  });

  it('leaves to the full path a token that expires within a minute, or has, so that it is refreshed', async () => {
    home.record('prod.test', { expires_at: new Date(Date.now() + 30_000).toISOString() });
    expect(await cachedAnswer(['token'], env)).toBeUndefined();
    home.record('prod.test', { expires_at: '2020-01-01T00:00:00Z' });
    expect(await cachedAnswer(['kube-credential'], env)).toBeUndefined();
  });

  const unlink = (domain: string) => rmSync(join(home.authDir, `${domain}.json`));
  it.each<[string, () => void, string[], (env: NodeJS.ProcessEnv) => NodeJS.ProcessEnv]>([
    ['no record', () => unlink('prod.test'), ['token'], (e) => e],
    [
      'an unreadable record',
      () => writeFileSync(join(home.authDir, 'prod.test.json'), '{not json'),
      ['token'],
      (e) => e,
    ],
    [
      'a record through a link',
      () => {
        unlink('prod.test');
        symlinkSync(join(home.authDir, 'dev.test.json'), join(home.authDir, 'prod.test.json'));
      },
      ['token'],
      (e) => e,
    ],
    ['an unknown context', () => undefined, ['token', '--context', 'nope'], (e) => e],
    ['a broken contexts file', () => writeFileSync(home.configFile, 'contexts: 3\n'), ['token'], (e) => e],
    ['no HOME', () => undefined, ['token'], () => ({})],
    [
      'a request kubectl cannot have made',
      () => undefined,
      ['kube-credential'],
      (e) => ({ ...e, KUBERNETES_EXEC_INFO: '{' }),
    ],
  ])('leaves %s to the full path, which says what is wrong', async (_, arrange, argv, envOf) => {
    arrange();
    expect(await cachedAnswer(argv, envOf(env))).toBeUndefined();
  });

  it('answers no other call: other verbs, help, flags it does not know', async () => {
    for (const argv of [
      ['status'],
      ['git-credential', 'get'],
      ['token', '--help'],
      ['token', '--env', 'x'],
      ['login'],
    ]) {
      expect([argv, await cachedAnswer(argv, env)]).toEqual([argv, undefined]);
    }
  });
});
