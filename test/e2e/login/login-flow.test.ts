import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { HttpStub } from '../../support/http-stub';
import { waitFor } from '../../support/wait-for';
import { CliHome, CliResult, finished, ROOT, waitForStderr } from '../support/skiff-home';
import { httpRequest, OidcServer } from '../support/oidc';
import { signIn, SignIn, useProvider } from '../support/sign-in';
import { viaOclif } from '../support/via-oclif';
import { BIG_BOARD_ID, freePort, giteaStandIn, GOOD_GIT_TOKEN, plankaStandIn } from '../support/stand-ins';
import { SEED_AUTHORIZATION_PARAMETERS } from '../../support/seed-authorization';

let oidc: OidcServer;
let gitea: HttpStub;
let planka: HttpStub;

beforeAll(async () => {
  [oidc, gitea, planka] = await Promise.all([OidcServer.start(), giteaStandIn(), plankaStandIn()]);
});

afterAll(async () => {
  await Promise.all([oidc?.stop(), gitea?.close(), planka?.close()]);
});

/** A fresh home with the context `e2e` pointing every service at the loopback stand-ins. */
async function homeWithContext(): Promise<CliHome> {
  const home = new CliHome();
  await useProvider(home, oidc, { services: ['--git-url', gitea.url, '--boards-url', `${planka.url}/api`] });
  return home;
}

/** The cache file's keys for a person's sign-in: the specification's fields, in order (gitea_token absent). */
const SPEC_KEYS = ['access_token', 'refresh_token', 'expires_at', 'id_token', 'domain'];

const cache = (home: CliHome) => JSON.parse(readFileSync(home.cacheFile('e2e.test'), 'utf8')) as Record<string, string>;

function expectNoSecret(texts: string[], record: Record<string, string>): void {
  const secrets = ['access_token', 'refresh_token', 'id_token', 'gitea_token'].map((k) => record[k]).filter((v) => v);
  for (const text of texts) for (const secret of secrets) expect(text).not.toContain(secret);
}

describe('auth sso against a real OpenID provider', () => {
  let home: CliHome;
  beforeAll(async () => {
    home = await homeWithContext();
  });
  afterAll(() => home.remove());

  let first: SignIn;
  it('signs in with PKCE through the loopback callback and writes the cache', async () => {
    first = await signIn(home, ['auth', 'sso']);
    expect(first.result).toMatchObject({ code: 0, stdout: 'Logged in to e2e.test as alice@example.com.\n' });
    expect(first.result.stderr).toContain('Signing in to e2e.test');
    expect(first.callbackPage).toMatch(/authentication succeeded/i);
    const names = new URL(first.authorizationUrl).search
      .slice(1)
      .split('&')
      .map((p) => p.split('=')[0]);
    expect(names).toEqual(SEED_AUTHORIZATION_PARAMETERS);
    expect(first.authorizationUrl).toContain('scope=openid%20email%20profile%20offline_access');
    const record = cache(home);
    // Exactly the specification's fields, in its order (no scope, no kind of sign-in).
    expect(Object.keys(record)).toEqual(SPEC_KEYS);
    expect(record.refresh_token).not.toBe('');
    expect(record.domain).toBe('e2e.test');
    expect(Date.parse(record.expires_at) - Date.now()).toBeGreaterThan(3500_000);
    expect(statSync(home.cacheFile('e2e.test')).mode & 0o777).toBe(0o600);
  });

  it('status shows the same facts as text and as JSON, with no token', async () => {
    const text = await home.run(['auth', 'status']);
    const json = await home.run(['auth', 'status', '--json']);
    expect(text.code).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines[0]).toBe('Logged in as alice@example.com');
    expect(lines[1]).toMatch(/^Token valid until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(lines).toContain('Domain: e2e.test');
    const [report, ...others] = JSON.parse(json.stdout);
    expect(others).toEqual([]);
    expect(report).toMatchObject({
      name: 'e2e.test',
      active: true,
      loggedIn: true,
      identity: 'alice@example.com',
      expired: false,
      domain: 'e2e.test',
      gitToken: false,
      scopes: ['openid', 'email', 'profile', 'offline_access'],
      signIn: 'person',
      tokenStore: { kind: 'file', path: home.cacheFile('e2e.test') },
    });
    expect(lines).toContain('Scopes: openid email profile offline_access');
    expect(lines.filter((line) => line.startsWith('Signed in with'))).toEqual([]);
    expect(lines).toContain(`Token store: file ${home.cacheFile('e2e.test')}`);
    expect(lines[1]).toBe(`Token valid until ${report.expiresAt.slice(0, 19).replace('T', ' ')} UTC`);
    expectNoSecret([text.stdout, text.stderr, json.stdout, json.stderr], cache(home));
  });

  it('token prints the access token and nothing else', async () => {
    const result = await home.run(['auth', 'token']);
    expect(result).toEqual({ code: 0, stdout: `${cache(home).access_token}\n`, stderr: '' });
  });

  it('token --json: the token, its expiry, scopes, sign-in kind and store, the same through oclif', async () => {
    const result = await home.run(['auth', 'token', '--json']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const record = cache(home);
    expect(JSON.parse(result.stdout)).toEqual({
      token: record.access_token,
      expiresAt: new Date(record.expires_at).toISOString(),
      scopes: ['openid', 'email', 'profile', 'offline_access'],
      signIn: 'person',
      tokenStore: { kind: 'file', path: home.cacheFile('e2e.test') },
    });
    expect(await viaOclif(home, ['auth', 'token', '--json'])).toEqual(result);
  });

  it('an expired token is refreshed at the provider, once, and the rotated refresh token stored', async () => {
    const before = cache(home);
    writeFileSync(
      home.cacheFile('e2e.test'),
      JSON.stringify({ ...before, expires_at: '2020-01-01T00:00:00Z' }, null, 2),
    );
    const grants = await oidc.grants('refresh_token');
    const result = await home.run(['auth', 'token']);
    expect(result.code).toBe(0);
    const after = cache(home);
    expect(result.stdout).toBe(`${after.access_token}\n`);
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(after.id_token).toBeTruthy();
    expect(Object.keys(after)).toEqual(SPEC_KEYS);
    expect(await oidc.grants('refresh_token')).toBe(grants + 1);
  });

  it('a file an earlier skiff wrote with scope and sign_in reads, and its refresh rewrites it without them', async () => {
    const before = cache(home);
    const old = { ...before, expires_at: '2099-01-01T00:00:00Z', scope: 'openid email', sign_in: 'device' };
    writeFileSync(home.cacheFile('e2e.test'), JSON.stringify(old, null, 2));
    const status = await home.run(['auth', 'status', '--json']);
    expect(JSON.parse(status.stdout)[0]).toMatchObject({
      loggedIn: true,
      scopes: ['openid', 'email', 'profile', 'offline_access'],
      signIn: 'person',
    });
    expect((await home.run(['auth', 'token'])).stdout).toBe(`${before.access_token}\n`);
    writeFileSync(home.cacheFile('e2e.test'), JSON.stringify({ ...old, expires_at: '2020-01-01T00:00:00Z' }, null, 2));
    const result = await home.run(['auth', 'token']);
    expect(result.code).toBe(0);
    const after = cache(home);
    expect(result.stdout).toBe(`${after.access_token}\n`);
    expect(after.access_token).not.toBe(before.access_token);
    expect(Object.keys(after)).toEqual(SPEC_KEYS);
  });

  it('20 commands at once on an expired token: one refresh, all get the same valid token, the cache parses throughout', async () => {
    const before = cache(home);
    writeFileSync(
      home.cacheFile('e2e.test'),
      JSON.stringify({ ...before, expires_at: '2020-01-01T00:00:00Z' }, null, 2),
    );
    const grants = await oidc.grants('refresh_token');
    let reads = 0;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        JSON.parse(readFileSync(home.cacheFile('e2e.test'), 'utf8'));
        reads += 1;
        await new Promise((r) => setImmediate(r));
      }
    })();
    const results = await Promise.all(Array.from({ length: 20 }, () => home.run(['auth', 'token'])));
    watching = false;
    await watcher;
    const after = cache(home);
    expect(results.map((r) => r.code)).toEqual(Array(20).fill(0));
    expect(new Set(results.map((r) => r.stdout))).toEqual(new Set([`${after.access_token}\n`]));
    expect(await oidc.grants('refresh_token')).toBe(grants + 1);
    expect(reads).toBeGreaterThan(0);
  });

  it('logout revokes the refresh token at the provider and removes the file; a second logout is no error', async () => {
    const record = cache(home);
    const revoked = (await oidc.stats()).revocation['200'] ?? 0;
    const out = await home.run(['auth', 'logout']);
    expect(out).toMatchObject({ code: 0, stdout: 'Logged out of e2e.test.\n' });
    expect((await oidc.stats()).revocation['200']).toBe(revoked + 1);
    const reuse = await httpRequest(`${oidc.issuer}/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: record.refresh_token,
        client_id: 'skiff-cli',
      }).toString(),
    });
    expect(reuse.status).toBe(400);
    expect(await home.run(['auth', 'logout'])).toMatchObject({ code: 0, stdout: 'Not logged in: nothing to do.\n' });
    expect(await home.run(['auth', 'status'])).toMatchObject({
      code: 0,
      stdout: 'Not logged in: run `skiff auth login`.\n',
    });
    const token = await home.run(['auth', 'token']);
    expect(token.code).toBe(4);
    expect(token.stderr).toBe('skiff: not logged in: run `skiff auth login`\n');
    expectNoSecret([out.stdout, out.stderr], record);
  });
});

describe('auth login, git and boards end to end', () => {
  let home: CliHome;
  beforeAll(async () => {
    home = await homeWithContext();
  });
  afterAll(() => home.remove());

  it('auth login: SSO, the callback page sends the browser to the git token page, then the piped git token is verified and stored', async () => {
    const { result, callbackPage } = await signIn(home, ['auth', 'login'], { input: `${GOOD_GIT_TOKEN}\n` });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Logged in to e2e.test as alice@example.com.\nGit token of alice stored.\n');
    expect(callbackPage).toContain(
      `<meta http-equiv="refresh" content="1;url=${gitea.url}/user/settings/applications">`,
    );
    expect(result.stderr).toContain(`${gitea.url}/user/settings/applications`);
    expect(gitea.requests.at(-1)?.headers.authorization).toBe(`token ${GOOD_GIT_TOKEN}`);
    expect(cache(home).gitea_token).toBe(GOOD_GIT_TOKEN);
    expect(Object.keys(cache(home))).toEqual([...SPEC_KEYS, 'gitea_token']);
    expectNoSecret([result.stdout, result.stderr], cache(home));
  });

  it('auth git: a rejected token is exit 4 stating the status; empty input is exit 4 "no token provided"', async () => {
    const wrong = await home.run(['auth', 'git', '--no-browser'], { input: 'wrong-token\n' });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toContain(`skiff: invalid token: the git host 127.0.0.1:${gitea.port} answered HTTP 401`);
    expect(wrong.stderr).not.toContain('wrong-token');
    const empty = await home.run(['auth', 'git', '--no-browser'], { input: '\n' });
    expect(empty.code).toBe(4);
    expect(empty.stderr).toMatch(/no token provided/);
    expect(cache(home).gitea_token).toBe(GOOD_GIT_TOKEN);
  });

  it('auth git on a terminal: the token typed is not echoed', async () => {
    const pty = require('node-pty') as typeof import('node-pty');
    const term = pty.spawn(process.execPath, [`${ROOT}/bin/run.js`, 'auth', 'git', '--no-browser'], {
      env: home.env as Record<string, string>,
      cols: 200,
      rows: 20,
    });
    let screen = '';
    term.onData((d) => (screen += d));
    const exit = new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
    await waitFor('the git token prompt', () => screen.includes('Paste the git token:'));
    term.write(`${GOOD_GIT_TOKEN}\r`);
    expect(await exit).toBe(0);
    expect(screen).toContain('Git token of alice stored for e2e.test.');
    expect(screen).not.toContain(GOOD_GIT_TOKEN);
  });

  it('auth set-gitea-token from standard input', async () => {
    const result = await home.run(['auth', 'set-gitea-token'], { input: GOOD_GIT_TOKEN });
    expect(result).toMatchObject({ code: 0, stdout: 'Git token of alice stored for e2e.test.\n' });
  });

  it('auth set-gitea-token reads standard input that arrives late (oclif must not take it)', async () => {
    // oclif reads stdin for a missing argument with a 10 ms time-out: a line that came
    // before it and an end-of-file after it was swallowed, and nothing was stored.
    const child = home.spawn(['auth', 'set-gitea-token']);
    const result = finished(child);
    child.stdin?.write(`${GOOD_GIT_TOKEN}\n`);
    await new Promise((r) => setTimeout(r, 300));
    child.stdin?.end();
    expect(await result).toMatchObject({ code: 0, stdout: 'Git token of alice stored for e2e.test.\n' });
  });

  it('boards list: token exchange, then every board with its project, ids exact', async () => {
    const json = await home.run(['boards', 'list', '--json']);
    expect(json.code).toBe(0);
    expect(json.stdout).toContain(`"id": "${BIG_BOARD_ID}"`);
    expect(JSON.parse(json.stdout)).toEqual([
      { id: BIG_BOARD_ID, name: 'Roadmap', project: { id: '1357924680135792468', name: 'Platform' } },
    ]);
    const exchange = planka.requests.find((r) => r.path === '/api/access-tokens/exchange-using-token');
    expect(JSON.parse(exchange?.body ?? '{}')).toEqual({ token: cache(home).access_token });
    const text = await home.run(['boards', 'list']);
    expect(text.stdout.split('\n')[1]).toMatch(new RegExp(`^${BIG_BOARD_ID}\\s+Roadmap\\s+Platform$`));
    expectNoSecret([json.stdout, text.stdout, json.stderr, text.stderr], cache(home));
  });

  it('status --json reports the git token without showing it', async () => {
    const json = await home.run(['auth', 'status', '--json']);
    expect(JSON.parse(json.stdout)[0]).toMatchObject({ gitToken: true });
    expect(json.stdout).not.toContain(GOOD_GIT_TOKEN);
  });
});

describe('errors end to end: one line, the contract exit code, no stack trace', () => {
  let home: CliHome;
  beforeEach(() => (home = new CliHome()));
  afterEach(() => home.remove());

  const oneLine = (result: CliResult) => {
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  };

  it('--env is a usage error pointing to --context (exit 2)', async () => {
    for (const args of [
      ['auth', 'token', '--env', 'prod'],
      ['auth', 'login', '--env=prod'],
      ['boards', 'list', '--env', 'x'],
    ]) {
      const result = await home.run(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--env flag was removed.*--context/);
      oneLine(result);
    }
  });

  it('no domain anywhere: configuration error naming --domain and config set --host (exit 3)', async () => {
    const result = await home.run(['auth', 'sso', '--no-browser']);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      'skiff: cannot determine the domain: pass --domain <domain> or run `skiff config set --host <domain>`\n',
    );
  });

  it('no domain anywhere: the commands that need a token say so, not "not logged in" (exit 3)', async () => {
    // The fast path of these two (the oclif commands run the same use cases: test/application).
    for (const args of [
      ['auth', 'token'],
      ['auth', 'kube-credential'],
    ]) {
      const result = await home.run(args);
      expect({ args, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        args,
        code: 3,
        stdout: '',
        stderr:
          'skiff: cannot determine the domain: pass --domain <domain> or run `skiff config set --host <domain>`\n',
      });
    }
  });

  it('no domain anywhere: status says the user is not logged in, no error (exit 0), fast path and oclif alike', async () => {
    for (const run of [(args: string[]) => home.run(args), (args: string[]) => viaOclif(home, args)]) {
      expect(await run(['auth', 'status'])).toEqual({
        code: 0,
        stdout: 'Not logged in: run `skiff auth login`.\n',
        stderr: '',
      });
      const json = await run(['auth', 'status', '--json']);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual([{ name: 'default', active: true, loggedIn: false }]);
    }
  });

  it('an unknown context is a configuration error (exit 3)', async () => {
    const result = await home.run(['auth', 'status', '--context', 'nope']);
    expect(result.code).toBe(3);
    oneLine(result);
  });

  it('a corrupt cache: token exits 4 naming the file; status reports it and exits 0', async () => {
    await home.run(['config', 'set', '--host', 'corrupt.test']);
    mkdirSync(home.authDir, { recursive: true });
    writeFileSync(home.cacheFile('corrupt.test'), '{"access_token": "abc');
    const token = await home.run(['auth', 'token']);
    expect(token.code).toBe(4);
    expect(token.stderr).toContain(home.cacheFile('corrupt.test'));
    expect(token.stderr).not.toContain('abc');
    oneLine(token);
    const status = await home.run(['auth', 'status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(home.cacheFile('corrupt.test'));
  });

  it('an unreachable identity provider is a network error naming the host (exit 5)', async () => {
    const port = await freePort();
    await home.run([
      'config',
      'set-context',
      'down',
      '--domain',
      'down.test',
      '--auth-url',
      `http://127.0.0.1:${port}`,
    ]);
    const result = await home.run(['auth', 'sso', '--context', 'down', '--no-browser']);
    expect(result.code).toBe(5);
    expect(result.stderr).toBe(
      `Signing in to down.test\nskiff: cannot connect to 127.0.0.1:${port}: connection refused; check the domain and that the service is up\n`,
    );
  });

  it('a plain-http service URL on a public host is refused (exit 3)', async () => {
    const result = await home.run([
      'config',
      'set-context',
      'bad',
      '--domain',
      'x.test',
      '--auth-url',
      'http://auth.x.test',
    ]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/must use https/);
  });

  it('a forged state at the callback fails the login with CSRF (exit 4) and the browser gets a 400 page', async () => {
    const other = await homeWithContext();
    try {
      const port = await freePort();
      const child = other.spawn(['auth', 'sso', '--no-browser', '--port', String(port)]);
      const done = finished(child);
      await waitForStderr(child, /Waiting for the browser/);
      const page = await httpRequest(`http://localhost:${port}/callback?code=stolen&state=forged`);
      expect(page.status).toBe(400);
      const result = await done;
      expect(result.code).toBe(4);
      expect(result.stderr).toMatch(/state mismatch.*CSRF/);
    } finally {
      other.remove();
    }
  });
});
