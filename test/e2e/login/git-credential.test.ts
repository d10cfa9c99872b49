import { execFile, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TLS_DIR } from '../../support/http-stub';
import { GitHostStandIn } from '../support/git-host-stand-in';
import { CliHome, CliResult, finished, ROOT } from '../support/skiff-home';
import { viaOclif } from '../support/via-oclif';
import { GOOD_GIT_TOKEN } from '../support/stand-ins';

const CA = join(TLS_DIR, 'localhost.crt');

let host: GitHostStandIn;
let repos: string;
let signedIn: CliHome;

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env, cwd }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The machine's git as the user of `home` runs it: that home's global config, the stand-in's CA trusted, no prompt. */
function git(home: CliHome, args: string[], cwd?: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return run(
    'git',
    args,
    {
      ...home.env,
      GIT_SSL_CAINFO: CA,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      GIT_AUTHOR_NAME: 'A',
      GIT_AUTHOR_EMAIL: 'a@example.com',
      GIT_COMMITTER_NAME: 'A',
      GIT_COMMITTER_EMAIL: 'a@example.com',
      ...env,
    },
    cwd,
  );
}

/** A home whose current context `e2e` has the stand-in as its git host. */
async function homeWithGitHost(): Promise<CliHome> {
  const home = new CliHome();
  Object.assign(home.env, { NODE_EXTRA_CA_CERTS: CA });
  mkdirSync(home.env.HOME as string, { recursive: true });
  expect((await home.run(['config', 'set-context', 'e2e', '--domain', 'e2e.test', '--git-url', host.url])).code).toBe(
    0,
  );
  expect((await home.run(['config', 'use-context', 'e2e'])).code).toBe(0);
  return home;
}

const getRequest = (protocol: string, hostname: string) =>
  `protocol=${protocol}\nhost=${hostname}\npath=team/app.git\n\n`;

beforeAll(async () => {
  const seed = new CliHome();
  repos = join(seed.dir, 'repos');
  mkdirSync(join(repos, 'team'), { recursive: true });
  const bare = join(repos, 'team', 'app.git');
  expect((await git(seed, ['init', '--bare', '--initial-branch', 'main', bare])).code).toBe(0);
  const work = join(seed.dir, 'seed');
  expect((await git(seed, ['init', '--initial-branch', 'main', work])).code).toBe(0);
  writeFileSync(join(work, 'README'), 'hello\n');
  expect((await git(seed, ['add', 'README'], work)).code).toBe(0);
  expect((await git(seed, ['commit', '-m', 'first'], work)).code).toBe(0);
  expect((await git(seed, ['push', bare, 'main'], work)).code).toBe(0);
  host = await GitHostStandIn.start(repos, GOOD_GIT_TOKEN);
  signedIn = await homeWithGitHost();
  const stored = await signedIn.run(['auth', 'set-gitea-token'], { input: `${GOOD_GIT_TOKEN}\n` });
  expect(stored).toMatchObject({ code: 0 });
});

afterAll(async () => {
  await host?.close();
  signedIn?.remove();
});

describe('git uses the stored git token through skiff (credential helper)', () => {
  it('setup-git configures a helper for the git host only, holding no token', async () => {
    const out = await signedIn.run(['auth', 'setup-git']);
    const gitconfig = join(signedIn.env.HOME as string, '.gitconfig');
    expect(out).toMatchObject({ code: 0 });
    expect(out.stdout).toBe(`git now asks skiff for the credentials of ${host.url} (configured in ${gitconfig}).\n`);
    const text = readFileSync(gitconfig, 'utf8');
    expect(text).not.toContain(GOOD_GIT_TOKEN);
    const helpers = await git(signedIn, ['config', '--global', '--get-all', `credential.${host.url}.helper`]);
    expect(helpers.stdout.split('\n')).toEqual([
      '',
      expect.stringMatching(/^!\S+\/bin\/run\.js auth git-credential --context e2e$/),
      '',
    ]);
    // Nothing for other hosts.
    expect((await git(signedIn, ['config', '--global', '--get-regexp', '^credential\\.helper$'])).stdout).toBe('');
  });

  it('clone, push and fetch through the smart HTTP protocol; the token never lands in .git/config or a URL', async () => {
    const work = join(signedIn.dir, 'work');
    const before = host.requests.length;
    const clone = await git(signedIn, ['clone', `${host.url}/team/app.git`, work]);
    expect(clone).toMatchObject({ code: 0 });
    expect(readFileSync(join(work, 'README'), 'utf8')).toBe('hello\n');
    const seen = host.requests.slice(before);
    expect(seen[0].authorization).toBeUndefined();
    expect(seen.some((r) => r.basic?.password === GOOD_GIT_TOKEN && r.basic.user === 'skiff')).toBe(true);
    writeFileSync(join(work, 'CHANGES'), 'one\n');
    expect((await git(signedIn, ['add', 'CHANGES'], work)).code).toBe(0);
    expect((await git(signedIn, ['commit', '-m', 'second'], work)).code).toBe(0);
    expect(await git(signedIn, ['push', 'origin', 'main'], work)).toMatchObject({ code: 0 });
    expect(host.requests.some((r) => r.url.includes('git-receive-pack') && r.method === 'POST')).toBe(true);
    const log = await run('git', ['--git-dir', join(repos, 'team', 'app.git'), 'log', '--format=%s', 'main'], {});
    expect(log.stdout).toBe('second\nfirst\n');
    expect(await git(signedIn, ['fetch', 'origin'], work)).toMatchObject({ code: 0 });
    expect(readFileSync(join(work, '.git', 'config'), 'utf8')).not.toContain(GOOD_GIT_TOKEN);
    expect((await git(signedIn, ['remote', 'get-url', 'origin'], work)).stdout).toBe(`${host.url}/team/app.git\n`);
    for (const request of host.requests) expect(request.url).not.toContain(GOOD_GIT_TOKEN);
  });

  it('answers get for the git host alone: another host, or plain http, gets nothing', async () => {
    const port = new URL(host.url).port;
    const ours = await signedIn.run(['auth', 'git-credential', 'get'], {
      input: getRequest('https', `127.0.0.1:${port}`),
    });
    expect(ours).toEqual({
      code: 0,
      stdout: `protocol=https\nhost=127.0.0.1:${port}\nusername=skiff\npassword=${GOOD_GIT_TOKEN}\n`,
      stderr: '',
    });
    for (const [protocol, other] of [
      ['https', 'evil.example.com'],
      ['https', '127.0.0.1'],
      ['http', `127.0.0.1:${port}`],
    ]) {
      const out = await signedIn.run(['auth', 'git-credential', 'get'], { input: getRequest(protocol, other) });
      expect(out.code).toBe(0);
      expect(out.stdout).toBe('');
      expect(out.stderr).toBe(`skiff: no credential for ${protocol}://${other}: skiff answers for ${host.url} only\n`);
    }
  });

  it('store and erase leave the cache alone and exit 0', async () => {
    const cache = signedIn.cacheFile('e2e.test');
    const before = readFileSync(cache, 'utf8');
    for (const operation of ['store', 'erase']) {
      const input = `${getRequest('https', new URL(host.url).host).trim()}\nusername=skiff\npassword=other\n\n`;
      expect(await signedIn.run(['auth', 'git-credential', operation], { input })).toEqual({
        code: 0,
        stdout: '',
        stderr: '',
      });
    }
    expect(readFileSync(cache, 'utf8')).toBe(before);
    const bad = await signedIn.run(['auth', 'git-credential', 'fill']);
    expect(bad.code).toBe(2);
  });

  it('without a stored token (here no sign-in at all) it says so on stderr and git falls back to its own prompt', async () => {
    const home = await homeWithGitHost();
    try {
      expect((await home.run(['auth', 'setup-git'])).code).toBe(0);
      const asked = join(home.dir, 'asked');
      const askpass = join(home.dir, 'askpass.sh');
      writeFileSync(
        askpass,
        `#!/bin/sh\necho "$1" >> '${asked}'\ncase "$1" in Username*) echo someone;; *) echo '${GOOD_GIT_TOKEN}';; esac\n`,
      );
      chmodSync(askpass, 0o755);
      const clone = await git(home, ['clone', `${host.url}/team/app.git`, join(home.dir, 'work')], undefined, {
        GIT_ASKPASS: askpass,
      });
      expect(clone).toMatchObject({ code: 0 });
      expect(clone.stderr).toContain('skiff: not logged in: run `skiff auth login`');
      expect(readFileSync(asked, 'utf8')).toMatch(/^Username for .*\nPassword for .*\n$/);
      // Signed in, but no git token stored: said so, in skiff's words.
      mkdirSync(home.authDir, { recursive: true, mode: 0o700 });
      const record = { access_token: 'a', refresh_token: '', expires_at: '2099-01-01T00:00:00Z', domain: 'e2e.test' };
      writeFileSync(home.cacheFile('e2e.test'), JSON.stringify(record), { mode: 0o600 });
      const get = await home.run(['auth', 'git-credential', 'get'], {
        input: getRequest('https', new URL(host.url).host),
      });
      expect(get).toEqual({
        code: 4,
        stdout: '',
        stderr: 'skiff: no git token stored: run `skiff auth git` or `skiff auth set-gitea-token <token>`\n',
      });
    } finally {
      home.remove();
    }
  });
});

describe('the fast path of `auth git-credential` (git runs it for every fetch and push)', () => {
  /** The same call through bin/run.js (the fast path) and through oclif alone: the same answer. */
  const both = async (home: CliHome, args: string[], input: string): Promise<CliResult> => {
    const [fast, oclif] = [await home.run(args, { input }), await viaOclif(home, args, { input })];
    expect(fast).toEqual(oclif);
    return fast;
  };

  /** What `skiff <args>` loaded, `input` on its standard input: every module file required, and Node's built-ins. */
  async function loadedBy(home: CliHome, args: string[], input: string) {
    const record = join(home.dir, 'loaded.json');
    const preload = join(home.dir, 'record-loaded.js');
    writeFileSync(
      preload,
      `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify({ files: Object.keys(require.cache), builtins: process.moduleLoadList })));`,
    );
    const child = spawn(process.execPath, ['-r', preload, join(ROOT, 'bin', 'run.js'), ...args], { env: home.env });
    child.stdin.end(input);
    const result = await finished(child);
    return { ...result, ...(JSON.parse(readFileSync(record, 'utf8')) as { files: string[]; builtins: string[] }) };
  }

  it('answers get, store and erase, in the form setup-git writes and plain, exactly as the oclif command', async () => {
    const ours = new URL(host.url).host;
    const reply = `protocol=https\nhost=${ours}\nusername=skiff\npassword=${GOOD_GIT_TOKEN}\n`;
    for (const flags of [[], ['--context', 'e2e'], ['--context=e2e'], ['--domain', 'e2e.test']]) {
      const get = await both(signedIn, ['auth', 'git-credential', ...flags, 'get'], getRequest('https', ours));
      expect(get).toEqual({ code: 0, stdout: reply, stderr: '' });
    }
    // CRLF lines, and a request git ends with EOF instead of a blank line.
    const crlf = await both(signedIn, ['auth', 'git-credential', 'get'], `protocol=https\r\nhost=${ours}\r\n`);
    expect(crlf.stdout).toBe(reply);
    const other = await both(signedIn, ['auth', 'git-credential', 'get'], getRequest('https', 'evil.example.com'));
    expect(other).toMatchObject({ code: 0, stdout: '' });
    expect(other.stderr).toContain('skiff: no credential for https://evil.example.com');
    for (const operation of ['store', 'erase']) {
      const input = `${getRequest('https', ours).trim()}\nusername=skiff\npassword=other\n\n`;
      expect(await both(signedIn, ['auth', 'git-credential', operation], input)).toEqual({
        code: 0,
        stdout: '',
        stderr: '',
      });
    }
    // Nothing on standard input; a line that is not key=value (a usage error, for store too).
    expect((await both(signedIn, ['auth', 'git-credential', 'get'], '')).code).toBe(0);
    for (const operation of ['get', 'store']) {
      const bad = await both(signedIn, ['auth', 'git-credential', operation], 'protocol=https\nnonsense\n\n');
      expect(bad).toEqual({
        code: 2,
        stdout: '',
        stderr: 'skiff: git credential input line "nonsense" is not key=value\n',
      });
    }
    // A context that does not exist: a configuration error, the same on both paths.
    expect(
      (await both(signedIn, ['auth', 'git-credential', '--context', 'nope', 'get'], getRequest('https', ours))).code,
    ).toBe(3);
    // Twenty-four calls, half of them through oclif: on a loaded 2-core machine that takes a while.
  }, 120_000);

  it('not signed in: the same error and exit code on both paths', async () => {
    const home = await homeWithGitHost();
    try {
      const get = await both(home, ['auth', 'git-credential', 'get'], getRequest('https', new URL(host.url).host));
      expect(get).toEqual({ code: 4, stdout: '', stderr: 'skiff: not logged in: run `skiff auth login`\n' });
    } finally {
      home.remove();
    }
  });

  it('loads neither oclif nor a linked plugin, nor the socket and stream modules of process.stdin', async () => {
    const home = await homeWithGitHost();
    try {
      expect((await home.run(['auth', 'set-gitea-token'], { input: `${GOOD_GIT_TOKEN}\n` })).code).toBe(0);
      const plugin = join(ROOT, 'examples', 'plugin-hello');
      expect((await home.run(['plugins', 'link', plugin, '--no-install'])).code).toBe(0);
      const ours = new URL(host.url).host;
      for (const operation of ['get', 'store', 'erase']) {
        const { code, stdout, files, builtins } = await loadedBy(
          home,
          ['auth', 'git-credential', '--context', 'e2e', operation],
          getRequest('https', ours),
        );
        expect(code).toBe(0);
        expect(stdout).toBe(
          operation === 'get' ? `protocol=https\nhost=${ours}\nusername=skiff\npassword=${GOOD_GIT_TOKEN}\n` : '',
        );
        expect(files.filter((f) => f.includes('@oclif') || f.startsWith(plugin) || f.includes('jose'))).toEqual([]);
        for (const builtin of ['net', 'stream', 'child_process', 'crypto', 'http2', 'https']) {
          expect(builtins).not.toContain(`NativeModule ${builtin}`);
        }
      }
    } finally {
      home.remove();
    }
  });
});
