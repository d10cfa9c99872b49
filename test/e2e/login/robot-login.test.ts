import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliHome } from '../support/skiff-home';
import { OidcServer } from '../support/oidc';
import { useProvider } from '../support/sign-in';

const SECRET = 'robot-secret';

/** A robot's cache file: the specification's fields (no id_token or git token) and its client. */
const ROBOT_KEYS = ['access_token', 'refresh_token', 'expires_at', 'domain', 'client_id', 'client_secret_file'];

const cacheOf = (home: CliHome) =>
  JSON.parse(readFileSync(home.cacheFile('e2e.test'), 'utf8')) as Record<string, string>;

/** A home whose context `e2e` uses the provider, with the robot's secret in a file. */
async function robotHome(oidc: OidcServer, secret = SECRET): Promise<{ home: CliHome; secretFile: string }> {
  const home = new CliHome();
  await useProvider(home, oidc);
  const secretFile = join(home.dir, 'robot.secret');
  writeFileSync(secretFile, `${secret}\n`, { mode: 0o600 });
  return { home, secretFile };
}

const login = (home: CliHome, args: string[], env: NodeJS.ProcessEnv = {}) =>
  home.run(['auth', 'login', '--client-id', 'skiff-robot', ...args], { env });

function expectExpired(home: CliHome): void {
  const record = cacheOf(home);
  writeFileSync(home.cacheFile('e2e.test'), JSON.stringify({ ...record, expires_at: '2020-01-01T00:00:00Z' }));
}

describe('auth login --client-id: a robot signs in with the client credentials grant (real provider)', () => {
  let oidc: OidcServer;
  beforeAll(async () => {
    oidc = await OidcServer.start();
  });
  afterAll(() => oidc.stop());

  it('with a secret file (client_secret_basic): cached without the secret; token, status, kube-credential serve it; obtained again on expiry', async () => {
    const { home, secretFile } = await robotHome(oidc);
    const result = await login(home, ['--client-secret-file', secretFile]);
    expect(result).toEqual({ code: 0, stdout: 'Logged in to e2e.test as the client skiff-robot.\n', stderr: '' });
    const record = cacheOf(home);
    expect(record).toMatchObject({
      refresh_token: '',
      domain: 'e2e.test',
      client_id: 'skiff-robot',
      client_secret_file: secretFile,
    });
    // The specification's fields and the client alone: the one departure (docs/login-contract.md, Decisions).
    expect(Object.keys(record)).toEqual(ROBOT_KEYS);
    expect(readFileSync(home.cacheFile('e2e.test'), 'utf8')).not.toContain(SECRET);

    expect(await home.run(['auth', 'token'])).toEqual({ code: 0, stdout: `${record.access_token}\n`, stderr: '' });
    expect(JSON.parse((await home.run(['auth', 'token', '--json'])).stdout)).toMatchObject({
      token: record.access_token,
      scopes: null,
      signIn: 'client-credentials',
      tokenStore: { kind: 'file', path: home.cacheFile('e2e.test') },
    });
    const status = await home.run(['auth', 'status', '--json', '--domain', 'e2e.test']);
    expect(JSON.parse(status.stdout)).toMatchObject({
      loggedIn: true,
      identity: 'client skiff-robot',
      scopes: null,
      signIn: 'client-credentials',
    });
    expect(status.stdout).not.toContain(record.access_token);
    expect(status.stdout).not.toContain(SECRET);
    const text = (await home.run(['auth', 'status', '--domain', 'e2e.test'])).stdout.split('\n');
    expect(text).toContain('Logged in as client skiff-robot');
    expect(text).toContain('Signed in with: client credentials');
    expect(text.filter((line) => line.startsWith('Scopes'))).toEqual([]);
    const kube = await home.run(['auth', 'kube-credential']);
    expect(JSON.parse(kube.stdout).status.token).toBe(record.access_token);

    expectExpired(home);
    const grants = await oidc.grants('client_credentials');
    const again = await home.run(['auth', 'token']);
    expect(again.code).toBe(0);
    const renewed = cacheOf(home);
    expect(again.stdout).toBe(`${renewed.access_token}\n`);
    expect(renewed.access_token).not.toBe(record.access_token);
    expect(renewed).toMatchObject({ client_id: 'skiff-robot', client_secret_file: secretFile });
    expect(Object.keys(renewed)).toEqual(ROBOT_KEYS);
    expect(await oidc.grants('client_credentials')).toBe(grants + 1);

    // The secret file gone: obtaining it again fails in one line, the cache untouched.
    expectExpired(home);
    const before = readFileSync(home.cacheFile('e2e.test'), 'utf8');
    writeFileSync(secretFile, '');
    const failed = await home.run(['auth', 'token']);
    expect(failed.code).toBe(3);
    expect(failed.stderr).toBe(`skiff: the client secret file ${secretFile} is empty\n`);
    expect(readFileSync(home.cacheFile('e2e.test'), 'utf8')).toBe(before);
    home.remove();
  });

  it('with SKIFF_CLIENT_SECRET: no file kept; the environment is read again on expiry', async () => {
    const { home } = await robotHome(oidc);
    expect((await login(home, [], { SKIFF_CLIENT_SECRET: SECRET })).code).toBe(0);
    const record = cacheOf(home);
    expect(record.client_secret_file).toBeUndefined();
    expect(readFileSync(home.cacheFile('e2e.test'), 'utf8')).not.toContain(SECRET);
    expectExpired(home);
    const again = await home.run(['auth', 'token'], { env: { SKIFF_CLIENT_SECRET: SECRET } });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`${cacheOf(home).access_token}\n`);
    expectExpired(home);
    const without = await home.run(['auth', 'token']);
    expect(without).toMatchObject({ code: 3, stdout: '' });
    expect(without.stderr).toBe(
      'skiff: no client secret: pass --client-secret-file <file> or set SKIFF_CLIENT_SECRET\n',
    );
    home.remove();
  });

  it.each([
    [
      'a missing secret file',
      (file: string) => ['--client-secret-file', `${file}.missing`],
      3,
      /client secret file .* does not exist$/,
    ],
    ['no secret at all', () => [], 3, /^skiff: no client secret: pass --client-secret-file/],
  ])('%s: one line, exit %s, nothing cached, no request', async (_, args, code, line) => {
    const { home, secretFile } = await robotHome(oidc);
    const grants = await oidc.stats();
    const result = await login(home, args(secretFile));
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr.trimEnd()).toMatch(line);
    expect(existsSync(home.cacheFile('e2e.test'))).toBe(false);
    expect((await oidc.stats()).token).toEqual(grants.token);
    home.remove();
  });

  it('a wrong secret: invalid_client, one line, exit 4, nothing cached, the secret not echoed', async () => {
    const { home, secretFile } = await robotHome(oidc, 'not-the-secret');
    const result = await login(home, ['--client-secret-file', secretFile]);
    expect(result.code).toBe(4);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/refused the client credentials grant: HTTP 401: .*invalid_client/);
    expect(result.stderr).not.toContain('not-the-secret');
    expect(existsSync(home.cacheFile('e2e.test'))).toBe(false);
    home.remove();
  });

  it('--client-id with --device: a usage error', async () => {
    const { home } = await robotHome(oidc);
    expect((await login(home, ['--device'])).code).toBe(2);
    home.remove();
  });
});

describe('auth login --client-id against providers configured otherwise', () => {
  it('a provider that accepts client_secret_post only: the secret is sent in the form', async () => {
    const oidc = await OidcServer.start({ OIDC_CLIENT_AUTH: 'post' });
    try {
      const { home, secretFile } = await robotHome(oidc);
      expect(await login(home, ['--client-secret-file', secretFile])).toMatchObject({ code: 0 });
      expect(cacheOf(home).client_id).toBe('skiff-robot');
      home.remove();
    } finally {
      await oidc.stop();
    }
  });

  it('a provider without the grant in grant_types_supported: one line, exit 3, nothing cached', async () => {
    const oidc = await OidcServer.start({ OIDC_CLIENT_CREDENTIALS: '0' });
    try {
      const { home, secretFile } = await robotHome(oidc);
      const result = await login(home, ['--client-secret-file', secretFile]);
      expect(result.code).toBe(3);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/does not offer the client credentials grant/);
      expect(existsSync(home.cacheFile('e2e.test'))).toBe(false);
      home.remove();
    } finally {
      await oidc.stop();
    }
  });
});
