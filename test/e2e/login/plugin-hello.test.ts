import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliHome, finished, ROOT } from '../support/skiff-home';
import { OidcServer } from '../support/oidc';
import { signInWithSso, useProvider } from '../support/sign-in';

const PLUGIN = join(ROOT, 'examples', 'plugin-hello');

let oidc: OidcServer;
let home: CliHome;

beforeAll(async () => {
  oidc = await OidcServer.start();
  home = new CliHome();
  await useProvider(home, oidc);
  expect((await signInWithSso(home)).code).toBe(0);
});

afterAll(async () => {
  await oidc?.stop();
  home?.remove();
});

const host = () => new URL(oidc.issuer).host;

/** What `skiff <args>` loaded: every module file required, and Node's built-in modules. */
async function loadedBy(args: string[]): Promise<{ code: number | null; files: string[]; builtins: string[] }> {
  const record = join(home.dir, 'loaded.json');
  const preload = join(home.dir, 'record-loaded.js');
  writeFileSync(
    preload,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify({ files: Object.keys(require.cache), builtins: process.moduleLoadList })));`,
  );
  const child = spawn(process.execPath, ['-r', preload, join(ROOT, 'bin', 'run.js'), ...args], { env: home.env });
  const { code } = await finished(child);
  return { code, ...(JSON.parse(readFileSync(record, 'utf8')) as { files: string[]; builtins: string[] }) };
}

describe('a plugin linked with `skiff plugins link`, against the real OpenID provider', () => {
  it('links the example: `plugins list` shows it and `skiff --help` lists its command', async () => {
    expect((await home.run(['plugins', 'link', PLUGIN, '--no-install'])).code).toBe(0);
    const list = await home.run(['plugins', 'list']);
    expect(list).toMatchObject({ code: 0, stdout: `skiff-plugin-hello 0.1.0 (link) ${PLUGIN}\n` });
    expect((await home.run(['plugins'])).stdout).toBe(list.stdout);
    const help = await home.run(['--help']);
    expect(help.stdout).toMatch(/^ {2}hello +Say who you are signed in as/m);
  });

  it('`skiff hello` prints who you are from the id token and what the provider says with the access token', async () => {
    const result = await home.run(['hello']);
    expect(result).toEqual({
      code: 0,
      stdout:
        'Hello alice@example.com, signed in on context e2e (e2e.test).\n' +
        `The platform at ${host()} knows you as alice@example.com.\n`,
      stderr: '',
    });
  });

  it('an expired token is refreshed at the provider first, as `skiff auth token` does, and stored', async () => {
    const file = home.cacheFile('e2e.test');
    const before = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    writeFileSync(file, JSON.stringify({ ...before, expires_at: '2020-01-01T00:00:00Z' }, null, 2), { mode: 0o600 });
    const grants = await oidc.grants('refresh_token');
    const result = await home.run(['hello']);
    expect(result.code).toBe(0);
    expect(await oidc.grants('refresh_token')).toBe(grants + 1);
    const after = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    expect(after.access_token).not.toBe(before.access_token);
    expect(Date.parse(after.expires_at)).toBeGreaterThan(Date.now());
  });

  it('errors are those of skiff: one line and the exit code of their kind', async () => {
    expect(await home.run(['hello', '--context', 'nope'])).toMatchObject({ code: 3, stdout: '' });
    const other = await home.run(['hello', '--domain', 'elsewhere.test']);
    expect(other).toEqual({ code: 4, stdout: '', stderr: 'skiff: not logged in: run `skiff auth login`\n' });
    expect((await home.run(['hello', '--env', 'prod'])).code).toBe(2);
  });

  it('`auth token` with the plugin linked still loads neither oclif nor the plugin, nor child_process, net or crypto', async () => {
    const { code, files, builtins } = await loadedBy(['auth', 'token']);
    expect(code).toBe(0);
    expect(files.filter((f) => f.includes('@oclif') || f.startsWith(PLUGIN))).toEqual([]);
    for (const builtin of ['child_process', 'net', 'crypto']) expect(builtins).not.toContain(`NativeModule ${builtin}`);
  });

  it('`plugins uninstall` unlinks it: its command is gone from skiff and from the help', async () => {
    expect((await home.run(['plugins', 'uninstall', 'skiff-plugin-hello'])).code).toBe(0);
    expect(await home.run(['plugins', 'list'])).toMatchObject({ code: 0, stdout: 'No plugins installed.\n' });
    expect((await home.run(['hello'])).code).toBe(2);
    expect((await home.run(['--help'])).stdout).not.toMatch(/^ {2}hello /m);
  });

  it('`plugins install` from a local directory adds the same command, `plugins uninstall` removes it', async () => {
    const install = await home.run(['plugins', 'install', `file:${PLUGIN}`]);
    expect(install.code).toBe(0);
    expect((await home.run(['plugins', 'list'])).stdout).toBe('skiff-plugin-hello 0.1.0\n');
    expect((await home.run(['hello'])).stdout).toContain('Hello alice@example.com');
    expect((await home.run(['plugins', 'uninstall', 'skiff-plugin-hello'])).code).toBe(0);
    expect((await home.run(['hello'])).code).toBe(2);
  });
});
