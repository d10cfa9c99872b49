import { spawn } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenCacheError } from '../../../../../src/domain/login/auth/auth-errors';
import { FsTokenCache } from '../../../../../src/adapters/login/outbound/token-cache/fs-token-cache';
import { FakeTokenCache } from '../../../../../src/adapters/fakes/login/fake-token-cache';
import { tokenCacheContract } from '../../../../contract/login/token-cache.contract';
import { aRecord, NOW } from '../../../../support/tokens';

tokenCacheContract('FakeTokenCache', () => {
  const cache = new FakeTokenCache();
  return { cache, corrupt: (d) => cache.markCorrupt(d), cleanup: () => undefined };
});

tokenCacheContract('FsTokenCache', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-cache-'));
  const cache = new FsTokenCache(join(dir, 'auth'));
  return {
    cache,
    corrupt: (d) => {
      mkdirSync(join(dir, 'auth'), { recursive: true });
      writeFileSync(cache.location(d), '{"access_token": "tor');
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe('FsTokenCache on disk', () => {
  let dir: string;
  let cache: FsTokenCache;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'skiff-cache-'));
    cache = new FsTokenCache(join(dir, 'skiff', 'auth'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const failure = async (promise: Promise<unknown>) => {
    const err = await promise.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TokenCacheError);
    return (err as Error).message;
  };

  it('writes pretty-printed JSON with exactly the documented fields, in order, optional ones omitted', async () => {
    await cache.write('example.com', aRecord({ idToken: undefined }));
    const text = readFileSync(cache.location('example.com'), 'utf8');
    expect(text).toBe(
      '{\n  "access_token": "access-1",\n  "refresh_token": "refresh-1",\n  "expires_at": "2030-01-01T01:00:00.000Z",\n  "domain": "example.com"\n}\n',
    );
    await cache.write('example.com', aRecord({ giteaToken: 'g' }));
    expect(Object.keys(JSON.parse(readFileSync(cache.location('example.com'), 'utf8')))).toEqual([
      'access_token',
      'refresh_token',
      'expires_at',
      'id_token',
      'domain',
      'gitea_token',
    ]);
  });

  it("a robot's record alone adds its client id and secret file; the cache says where the file is", async () => {
    expect(cache.store('example.com')).toEqual({ kind: 'file', path: cache.location('example.com') });
    await cache.write(
      'example.com',
      aRecord({ refreshToken: '', clientId: 'ci', clientSecretFile: '/run/secrets/ci', idToken: undefined }),
    );
    const text = readFileSync(cache.location('example.com'), 'utf8');
    expect(Object.keys(JSON.parse(text))).toEqual([
      'access_token',
      'refresh_token',
      'expires_at',
      'domain',
      'client_id',
      'client_secret_file',
    ]);
    expect(await cache.read('example.com')).toMatchObject({ clientId: 'ci', clientSecretFile: '/run/secrets/ci' });
  });

  it('a file an earlier skiff wrote with scope and sign_in reads (the keys ignored) and is rewritten without them', async () => {
    mkdirSync(join(dir, 'skiff', 'auth'), { recursive: true });
    const old = {
      access_token: 'a',
      refresh_token: 'r',
      expires_at: '2030-01-01T00:00:00.000Z',
      id_token: 'h.p.s',
      domain: 'example.com',
      scope: 'openid email',
      sign_in: 'device',
    };
    writeFileSync(cache.location('example.com'), JSON.stringify(old, null, 2));
    const read = await cache.read('example.com');
    expect(read).toBeDefined();
    expect(Object.keys(read ?? {}).sort()).toEqual(['accessToken', 'domain', 'expiresAt', 'idToken', 'refreshToken']);
    expect(read?.signInKind()).toBe('person');
    await cache.write('example.com', (read as NonNullable<typeof read>).withRefreshed({ accessToken: 'b' }, NOW));
    const rewritten = JSON.parse(readFileSync(cache.location('example.com'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(rewritten)).toEqual(['access_token', 'refresh_token', 'expires_at', 'id_token', 'domain']);
    expect(rewritten).toMatchObject({
      access_token: 'b',
      refresh_token: 'r',
      id_token: 'h.p.s',
      domain: 'example.com',
    });
    // Any value they held, even one no skiff wrote, is ignored the same way.
    writeFileSync(cache.location('example.com'), JSON.stringify({ ...old, scope: 5, sign_in: 'carrier-pigeon' }));
    expect((await cache.read('example.com'))?.accessToken).toBe('a');
  });

  it('creates missing directories (0700) and the file 0600, leaving no temp file behind', async () => {
    await cache.write('example.com', aRecord());
    expect(statSync(cache.location('example.com')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'skiff', 'auth')).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(dir, 'skiff', 'auth'))).toEqual(['example.com.json']);
  });

  it('stays 0600 whatever the umask', async () => {
    const old = process.umask(0);
    try {
      await cache.write('example.com', aRecord());
    } finally {
      process.umask(old);
    }
    expect(statSync(cache.location('example.com')).mode & 0o777).toBe(0o600);
  });

  it('a file found with mode 0644 is tightened to 0600 when read, and rewritten 0600', async () => {
    await cache.write('example.com', aRecord());
    chmodSync(cache.location('example.com'), 0o644);
    await cache.read('example.com');
    expect(statSync(cache.location('example.com')).mode & 0o777).toBe(0o600);
    chmodSync(cache.location('example.com'), 0o644);
    await cache.write('example.com', aRecord());
    expect(statSync(cache.location('example.com')).mode & 0o777).toBe(0o600);
  });

  it('reads a record with missing optional keys (gitea_token defaults to absent)', async () => {
    mkdirSync(join(dir, 'skiff', 'auth'), { recursive: true });
    writeFileSync(
      cache.location('x'),
      JSON.stringify({ access_token: 'a', refresh_token: '', expires_at: '2030-01-01T00:00:00+02:00', domain: 'x' }),
    );
    const read = await cache.read('x');
    expect(read?.giteaToken).toBeUndefined();
    expect(read?.expiresAt.toISOString()).toBe('2029-12-31T22:00:00.000Z');
  });

  it.each([
    ['invalid JSON', '{"access_token":', /not valid JSON/],
    ['a JSON array', '[]', /JSON object/],
    [
      'a missing field',
      JSON.stringify({ access_token: 'a', expires_at: '2030-01-01T00:00:00Z', domain: 'x' }),
      /refresh_token/,
    ],
    [
      'a wrong field type',
      JSON.stringify({ access_token: 1, refresh_token: '', expires_at: '2030-01-01T00:00:00Z', domain: 'x' }),
      /access_token/,
    ],
    [
      'a bad timestamp',
      JSON.stringify({ access_token: 'a', refresh_token: '', expires_at: 'tomorrow', domain: 'x' }),
      /expires_at/,
    ],
    [
      'a wrong optional type',
      JSON.stringify({
        access_token: 'a',
        refresh_token: '',
        expires_at: '2030-01-01T00:00:00Z',
        domain: 'x',
        gitea_token: 5,
      }),
      /gitea_token/,
    ],
  ])('%s: an error naming the path and the problem, no token in it', async (_, content, problem) => {
    mkdirSync(join(dir, 'skiff', 'auth'), { recursive: true });
    writeFileSync(cache.location('x'), content);
    const message = await failure(cache.read('x'));
    expect(message).toContain(cache.location('x'));
    expect(message).toMatch(problem);
    expect(message.split('\n')).toHaveLength(1);
  });

  it('a directory where the file should be: read and write fail naming the path', async () => {
    mkdirSync(cache.location('x'), { recursive: true });
    expect(await failure(cache.read('x'))).toMatch(/is a directory/);
    expect(await failure(cache.write('x', aRecord()))).toContain(cache.location('x'));
  });

  it('refuses to write through a symlink, and leaves its target alone', async () => {
    mkdirSync(join(dir, 'skiff', 'auth'), { recursive: true });
    const target = join(dir, 'elsewhere.json');
    writeFileSync(target, 'precious');
    symlinkSync(target, cache.location('x'));
    expect(await failure(cache.write('x', aRecord()))).toMatch(/symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('precious');
    expect(lstatSync(cache.location('x')).isSymbolicLink()).toBe(true);
  });

  it('an unreadable file is an error naming the path (not root only)', async () => {
    await cache.write('x', aRecord());
    if (process.getuid?.() === 0) {
      // root reads anything: a FIFO stands in for a file that cannot be read.
      rmSync(cache.location('x'));
      require('node:child_process').execFileSync('mkfifo', [cache.location('x')]);
      expect(await failure(cache.read('x'))).toMatch(/not a regular file/);
    } else {
      chmodSync(cache.location('x'), 0o000);
      expect(await failure(cache.read('x'))).toMatch(/permission denied/);
    }
  });

  it('a write killed with SIGKILL at any moment never leaves a torn file', async () => {
    await cache.write('example.com', aRecord());
    const script = `
      const { FsTokenCache } = require(${JSON.stringify(join(__dirname, '../../../../../dist/adapters/login/outbound/token-cache/fs-token-cache.js'))});
      const { AuthTokens } = require(${JSON.stringify(join(__dirname, '../../../../../dist/domain/login/auth/auth-tokens.js'))});
      const cache = new FsTokenCache(${JSON.stringify(join(dir, 'skiff', 'auth'))});
      let i = 0;
      (async () => { for (;;) await cache.write('example.com', new AuthTokens({ accessToken: 'a'.repeat(5000) + (i++), refreshToken: 'r', expiresAt: new Date(), domain: 'example.com' })); })();
      process.stdout.write('go\\n');`;
    for (let round = 0; round < 5; round++) {
      const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise((resolve) => child.stdout.once('data', resolve));
      await new Promise((resolve) => setTimeout(resolve, 20 + round * 15));
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      const read = await cache.read('example.com');
      expect(read?.domain).toBe('example.com');
    }
  });
});
