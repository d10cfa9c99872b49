import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cachedAnswer } from '../../../src/infrastructure/entry/auth-read';

/**
 * The read path of `auth token`, `auth kube-credential` and `auth git-credential`
 * (entry/auth-read.ts) answers only from what the cache holds now, and leaves every other
 * case to the auth bundle, whose answers (errors and notices included)
 * test/e2e/login/config-and-fast-path.test.ts and git-credential.test.ts hold to the oclif commands'.
 */
describe('auth token, kube-credential and git-credential from the cache alone', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  const authDir = () => join(home, 'data', 'skiff', 'auth');
  const configFile = () => join(home, 'config', 'skiff', 'config.yaml');
  const record = (domain: string, fields: Record<string, string> = {}) =>
    writeFileSync(
      join(authDir(), `${domain}.json`),
      JSON.stringify({
        access_token: `${domain}-access`,
        refresh_token: 'r',
        expires_at: '2099-01-01T00:00:00Z',
        domain,
        ...fields,
      }),
      { mode: 0o600 },
    );

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'skiff-auth-read-'));
    env = { HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config') };
    mkdirSync(authDir(), { recursive: true, mode: 0o700 });
    mkdirSync(join(home, 'config', 'skiff'), { recursive: true, mode: 0o700 });
    writeFileSync(
      configFile(),
      'current-context: prod\ncontexts:\n  - name: prod\n    context:\n      domain: prod.test\n  - name: dev\n    context:\n      domain: dev.test\n',
    );
    record('prod.test');
    record('dev.test');
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

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
      tokenStore: { kind: 'file', path: join(authDir(), 'prod.test.json') },
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
    record('prod.test', { expires_at: new Date(Date.now() + 30_000).toISOString() });
    expect(await cachedAnswer(['token'], env)).toBeUndefined();
    record('prod.test', { expires_at: '2020-01-01T00:00:00Z' });
    expect(await cachedAnswer(['kube-credential'], env)).toBeUndefined();
  });

  const unlink = (domain: string) => rmSync(join(authDir(), `${domain}.json`));
  it.each<[string, () => void, string[], (env: NodeJS.ProcessEnv) => NodeJS.ProcessEnv]>([
    ['no record', () => unlink('prod.test'), ['token'], (e) => e],
    ['an unreadable record', () => writeFileSync(join(authDir(), 'prod.test.json'), '{not json'), ['token'], (e) => e],
    [
      'a record through a link',
      () => {
        unlink('prod.test');
        symlinkSync(join(authDir(), 'dev.test.json'), join(authDir(), 'prod.test.json'));
      },
      ['token'],
      (e) => e,
    ],
    ['an unknown context', () => undefined, ['token', '--context', 'nope'], (e) => e],
    ['a broken contexts file', () => writeFileSync(configFile(), 'contexts: 3\n'), ['token'], (e) => e],
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

  const request = (host: string) => `protocol=https\nhost=${host}\npath=team/app.git\n\n`;
  it("git-credential get: the git token, for the git host of the flag's or the context's domain only", async () => {
    record('prod.test', { gitea_token: 'prod-git' });
    record('dev.test', { gitea_token: 'dev-git' });
    const get = (argv: string[], host: string) => cachedAnswer(['git-credential', ...argv, 'get'], env, request(host));
    expect(await get([], 'src.prod.test')).toBe(
      'protocol=https\nhost=src.prod.test\nusername=skiff\npassword=prod-git\n',
    );
    expect(await get(['--context', 'dev'], 'src.dev.test')).toContain('password=dev-git\n');
    expect(await get(['--domain', 'dev.test'], 'src.dev.test')).toContain('password=dev-git\n');
    // Another host is GitCredential's to refuse, with its notice; so is a record without a git token.
    expect(await get([], 'evil.example.com')).toBeUndefined();
    record('prod.test');
    expect(await get([], 'src.prod.test')).toBeUndefined();
  });

  it('git-credential store and erase: nothing to say, once the request reads as git writes it', async () => {
    for (const operation of ['store', 'erase']) {
      expect(await cachedAnswer(['git-credential', operation], env, request('src.prod.test'))).toBe('');
      expect(await cachedAnswer(['git-credential', operation], env, 'nonsense\n')).toBeUndefined();
    }
  });

  it('git-credential get leaves a domain it would read from the cache (with a notice) to the full path', async () => {
    writeFileSync(configFile(), 'contexts: []\n');
    record('', { gitea_token: 'g' });
    expect(await cachedAnswer(['git-credential', 'get'], env, request('src.prod.test'))).toBeUndefined();
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
