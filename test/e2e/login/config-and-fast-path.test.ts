import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliHome, CliResult, ROOT } from '../support/skiff-home';

/** The same command through oclif alone (no fast path), to compare outputs. */
function viaOclif(home: CliHome, args: string[]): Promise<CliResult> {
  const script = `require('reflect-metadata'); require('@oclif/core').execute({ dir: ${JSON.stringify(`${ROOT}/bin/run.js`)}, args: ${JSON.stringify(args)} }).catch(require('@oclif/core/handle'))`;
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['-e', script], { env: home.env, cwd: ROOT }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

describe('skiff config: kubectl-style contexts in $XDG_CONFIG_HOME/skiff/config.yaml', () => {
  let home: CliHome;
  beforeEach(() => (home = new CliHome()));
  afterEach(() => home.remove());

  it('set --host, set-context, get-contexts, current-context, use-context, view, delete-context', async () => {
    expect((await home.run(['config', 'current-context'])).code).toBe(3);
    expect(await home.run(['config', 'set', '--host', 'example.com'])).toMatchObject({
      code: 0,
      stdout: 'Context local now uses the domain example.com.\n',
    });
    expect(
      await home.run([
        'config',
        'set-context',
        'dev',
        '--domain',
        'dev.example.com',
        '--auth-url',
        'http://127.0.0.1:5556',
      ]),
    ).toMatchObject({
      code: 0,
      stdout: 'Context dev created.\n',
    });
    expect((await home.run(['config', 'get-contexts'])).stdout).toBe(
      'CURRENT   NAME    DOMAIN\n*         local   example.com\n          dev     dev.example.com\n',
    );
    expect(await home.run(['config', 'use-context', 'dev'])).toMatchObject({ code: 0 });
    expect(await home.run(['config', 'current-context'])).toMatchObject({ code: 0, stdout: 'dev\n' });
    const view = await home.run(['config', 'view']);
    expect(view.stdout).toContain('current-context: dev');
    expect(view.stdout).toContain('auth-url: http://127.0.0.1:5556');
    expect(readFileSync(`${home.env.XDG_CONFIG_HOME}/skiff/config.yaml`, 'utf8')).toContain('  - name: dev');
    expect(JSON.parse((await home.run(['config', 'get-contexts', '--json'])).stdout)).toMatchObject({ current: 'dev' });
    expect(await home.run(['config', 'delete-context', 'dev'])).toMatchObject({ code: 0 });
    expect(await home.run(['config', 'current-context'])).toMatchObject({ code: 0, stdout: 'local\n' });
    const missing = await home.run(['config', 'use-context', 'nope']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/context "nope".*does not exist/);
  });

  it('$HOME/.config is used without XDG_CONFIG_HOME', async () => {
    const env = { XDG_CONFIG_HOME: '' };
    await home.run(['config', 'set', '--host', 'h.example.com'], { env });
    expect(readFileSync(`${home.env.HOME}/.config/skiff/config.yaml`, 'utf8')).toContain('domain: h.example.com');
  });

  it('a broken config file is a configuration error naming it', async () => {
    mkdirSync(`${home.env.XDG_CONFIG_HOME}/skiff`, { recursive: true });
    writeFileSync(`${home.env.XDG_CONFIG_HOME}/skiff/config.yaml`, 'contexts: [');
    const result = await home.run(['auth', 'status']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('config.yaml is not valid YAML');
  });
});

describe('the fast path of auth token and auth status answers exactly as the oclif commands', () => {
  let home: CliHome;
  beforeAll(async () => {
    home = new CliHome();
    await home.run(['config', 'set', '--host', 'fast.test']);
    mkdirSync(home.authDir, { recursive: true });
  });
  afterAll(() => home.remove());

  const both = async (args: string[]) => {
    const [fast, oclif] = [await home.run(args), await viaOclif(home, args)];
    expect(fast).toEqual(oclif);
    return fast;
  };

  it('logged out', async () => {
    expect((await both(['auth', 'status'])).stdout).toBe('Not logged in: run `skiff auth login`.\n');
    expect(JSON.parse((await both(['auth', 'status', '--json'])).stdout)).toEqual([
      { name: 'fast.test', active: true, loggedIn: false },
    ]);
    expect((await both(['auth', 'status', '--json', '--domain', 'x.test'])).stdout).toBe('{\n  "loggedIn": false\n}\n');
    expect((await both(['auth', 'token'])).code).toBe(4);
    const json = await both(['auth', 'token', '--json']);
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { kind: 'Identity', exitCode: 4 } });
  });

  it('logged in, valid and expired, with --domain and --context', async () => {
    const record = {
      access_token: 'fast-access',
      refresh_token: '',
      expires_at: '2099-01-01T00:00:00Z',
      domain: 'fast.test',
    };
    writeFileSync(home.cacheFile('fast.test'), JSON.stringify(record));
    expect((await both(['auth', 'token'])).stdout).toBe('fast-access\n');
    expect((await both(['auth', 'token', '--context', 'local'])).stdout).toBe('fast-access\n');
    // The kind of sign-in and the scopes are derived from the record: a person's, the scopes skiff asks for.
    const person = { scopes: ['openid', 'email', 'profile', 'offline_access'], signIn: 'person' };
    expect(JSON.parse((await both(['auth', 'token', '--json'])).stdout)).toEqual({
      token: 'fast-access',
      expiresAt: '2099-01-01T00:00:00.000Z',
      ...person,
      tokenStore: { kind: 'file', path: home.cacheFile('fast.test') },
    });
    // A file an earlier skiff wrote with scope and sign_in: the keys are ignored.
    writeFileSync(home.cacheFile('fast.test'), JSON.stringify({ ...record, scope: 'openid kube', sign_in: 'device' }));
    expect(JSON.parse((await both(['auth', 'token', '--json', '--domain', 'fast.test'])).stdout)).toMatchObject(person);
    expect(JSON.parse((await both(['auth', 'status', '--json', '--domain', 'fast.test'])).stdout)).toMatchObject({
      ...person,
      tokenStore: { kind: 'file', path: home.cacheFile('fast.test') },
    });
    expect((await both(['auth', 'status', '--domain', 'fast.test'])).stdout).toContain(
      'Token valid until 2099-01-01 00:00:00 UTC',
    );
    writeFileSync(home.cacheFile('fast.test'), JSON.stringify({ ...record, expires_at: '2020-01-01T00:00:00Z' }));
    const expired = await both(['auth', 'token']);
    expect(expired.code).toBe(4);
    expect(expired.stderr).toBe('skiff: session expired: run `skiff auth login`\n');
    expect(JSON.parse((await both(['auth', 'status', '--json'])).stdout)).toMatchObject([
      { name: 'fast.test', active: true, expired: true, refreshOnNextUse: false },
    ]);
  });

  it('status without --domain lists every domain with a cache, the active one first and marked', async () => {
    const record = (domain: string) =>
      JSON.stringify({ access_token: 'a', refresh_token: 'r', expires_at: '2099-01-01T00:00:00Z', domain });
    writeFileSync(home.cacheFile('fast.test'), record('fast.test'));
    writeFileSync(home.cacheFile('b.test'), record('b.test'));
    writeFileSync(home.cacheFile('a.test'), '{not json');
    writeFileSync(home.cacheFile('b.test').replace('.json', '.boards.json'), '{}');
    const text = await both(['auth', 'status']);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n').filter((line) => line !== '' && !line.startsWith('  '))).toEqual([
      'fast.test (active)',
      'a.test',
      'b.test',
    ]);
    expect(text.stdout).toContain('a.test\n  Not logged in: run `skiff auth login`.\n  (token cache ');
    expect(text.stdout).toContain('b.test\n  Logged in as unknown\n  Token valid until 2099-01-01 00:00:00 UTC\n');
    const list = JSON.parse((await both(['auth', 'status', '--json', '--context', 'local'])).stdout);
    expect(
      list.map((d: { name: string; active: boolean; loggedIn: boolean }) => [d.name, d.active, d.loggedIn]),
    ).toEqual([
      ['fast.test', true, true],
      ['a.test', false, false],
      ['b.test', false, true],
    ]);
    expect(text.stdout).not.toContain('"r"');
  });

  it('a token it cannot write (a pipe closed before the answer) is one line on stderr and exit 1, never a stack trace', async () => {
    writeFileSync(
      home.cacheFile('fast.test'),
      JSON.stringify({
        access_token: 'fast-access',
        refresh_token: '',
        expires_at: '2099-01-01T00:00:00Z',
        domain: 'fast.test',
      }),
    );
    for (const verb of ['token', 'kube-credential']) {
      const child = spawn(process.execPath, ['bin/run.js', 'auth', verb], { env: home.env, cwd: ROOT });
      child.stdout.destroy(); // long before Node has started: its write meets EPIPE
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect({ verb, code, stderr }).toEqual({ verb, code: 1, stderr: 'skiff: EPIPE: broken pipe, write\n' });
    }
  });

  it('errors with --json', async () => {
    const result = await both(['auth', 'status', '--json', '--context', 'missing']);
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { kind: 'Configuration', exitCode: 3 } });
  });
});

describe('no HOME: a configuration error naming HOME, never a path relative to the working directory', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'skiff-nohome-'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));
  // What a relative <data_dir> would have found: a cache in the working directory.
  const planted = join(cwd, '.local', 'share', 'skiff', 'auth');
  mkdirSync(planted, { recursive: true });
  writeFileSync(
    join(planted, 'planted.test.json'),
    JSON.stringify({
      access_token: 'planted-access',
      refresh_token: '',
      expires_at: '2099-01-01T00:00:00Z',
      domain: 'planted.test',
    }),
  );
  const run = (args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> =>
    new Promise((resolve) => {
      const child = execFile(
        process.execPath,
        [`${ROOT}/bin/run.js`, ...args],
        { env: { PATH: process.env.PATH, BROWSER: '/bin/false', ...env }, cwd },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
      child.stdin?.end();
    });

  it.each([
    [['auth', 'token', '--domain', 'planted.test']],
    [['auth', 'status', '--domain', 'planted.test']],
    [['config', 'set', '--host', 'planted.test']],
  ])('skiff %j with neither HOME nor absolute XDG dirs', async (args) => {
    for (const env of [{}, { HOME: 'rel', XDG_DATA_HOME: '.local/share', XDG_CONFIG_HOME: '.config' }]) {
      const result = await run(args, env);
      expect(result).toMatchObject({ code: 3, stdout: '' });
      expect(result.stderr).toMatch(/^skiff: .*HOME is (not set|not an absolute path).*set HOME/);
      expect(existsSync(join(cwd, '.config'))).toBe(false);
    }
  });
});
