import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenCacheError } from '../../../../src/domain/login/auth/auth-errors';
import { ConfigurationError } from '../../../../src/domain/shared/errors';
import { FsBoardCredentials } from '../../../../src/adapters/login/outbound/board-credentials/fs-board-credentials';
import { FsRefreshLock } from '../../../../src/adapters/login/outbound/refresh-lock/fs-refresh-lock';
import { FsTokenCache } from '../../../../src/adapters/login/outbound/token-cache/fs-token-cache';
import { YamlConfigStore } from '../../../../src/adapters/login/outbound/config-store/yaml-config-store';
import { aRecord } from '../../../support/tokens';

// The files skiff keeps for the user are never read-and-fixed, written, renamed
// over, chmodded or locked through a symbolic link; a file with other hard links is
// never chmodded. Each test plants the link and checks its target is untouched.

let dir: string;
let auth: string;
let target: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'skiff-nofollow-'));
  auth = join(dir, 'auth');
  mkdirSync(auth, { recursive: true, mode: 0o700 });
  // Stands in for /etc/passwd: readable by all, owned by the user running the test.
  target = join(dir, 'victim');
  writeFileSync(target, 'precious\n');
  chmodSync(target, 0o644);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const untouched = () => {
  expect(statSync(target).mode & 0o777).toBe(0o644);
  expect(readFileSync(target, 'utf8')).toBe('precious\n');
};

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  expect((err as Error).message.split('\n')).toHaveLength(1);
  return err as Error;
}

describe('the token cache', () => {
  let cache: FsTokenCache;
  beforeEach(() => (cache = new FsTokenCache(auth)));

  it('a cache file that is a symlink is not read through nor chmodded: an error names the link and says what to do', async () => {
    symlinkSync(target, cache.location('example.test'));
    const err = await rejection(cache.read('example.test'));
    expect(err).toBeInstanceOf(TokenCacheError);
    expect(err.message).toContain(cache.location('example.test'));
    expect(err.message).toMatch(/is a symbolic link.*remove the link.*sign in again/);
    untouched();
    expect(lstatSync(cache.location('example.test')).isSymbolicLink()).toBe(true);
  });

  it('a dangling symlink is refused the same way (it is not "not logged in")', async () => {
    symlinkSync(join(dir, 'nowhere'), cache.location('example.test'));
    expect((await rejection(cache.read('example.test'))).message).toMatch(/symbolic link/);
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
  });

  it('a readable-by-others file with a second hard link is not chmodded (the other name may be /etc/passwd)', async () => {
    linkSync(target, cache.location('example.test'));
    const err = await rejection(cache.read('example.test'));
    expect(err).toBeInstanceOf(TokenCacheError);
    expect(err.message).toMatch(/2 hard links/);
    expect(err.message).toContain(cache.location('example.test'));
    untouched();
  });

  it('a private file with a second hard link is read as it is', async () => {
    await cache.write('example.test', aRecord({ domain: 'example.test' }));
    linkSync(cache.location('example.test'), join(dir, 'backup.json'));
    await expect(cache.read('example.test')).resolves.toMatchObject({ domain: 'example.test' });
  });

  it('a file of its own, one link, readable by others, is still tightened to 0600', async () => {
    await cache.write('example.test', aRecord({ domain: 'example.test' }));
    chmodSync(cache.location('example.test'), 0o644);
    await cache.read('example.test');
    expect(statSync(cache.location('example.test')).mode & 0o777).toBe(0o600);
  });

  it('write and remove never touch the target of a link', async () => {
    symlinkSync(target, cache.location('example.test'));
    const err = await rejection(cache.write('example.test', aRecord()));
    expect(err.message).toMatch(/symbolic link.*remove the link/);
    untouched();
    await expect(cache.remove('example.test')).resolves.toBe(true);
    untouched();
  });
});

describe('the board credentials', () => {
  const file = () => join(auth, 'example.test.boards.json');

  it('a symlink is refused on read (not silently taken as empty) and on write; its target keeps its mode', async () => {
    const boards = new FsBoardCredentials(auth);
    symlinkSync(target, file());
    const read = await rejection(boards.read('example.test'));
    expect(read).toBeInstanceOf(TokenCacheError);
    expect(read.message).toContain(file());
    expect(read.message).toMatch(/symbolic link.*remove the link/);
    expect((await rejection(boards.write('example.test', { apiKey: 'k' }))).message).toMatch(/symbolic link/);
    untouched();
  });

  it('a hard link to a file readable by others is not chmodded', async () => {
    linkSync(target, file());
    await rejection(new FsBoardCredentials(auth).read('example.test'));
    untouched();
  });
});

describe('the refresh lock', () => {
  const timing = { waitMs: 3000, staleMs: 60_000, pollMs: 5 };
  const lockFile = () => join(auth, 'example.test.lock');

  it('a lock file that is a symlink: refused at once, naming it, the target neither read as a lock nor removed', async () => {
    symlinkSync(target, lockFile());
    const started = Date.now();
    let ran = false;
    const err = await rejection(new FsRefreshLock(auth, timing).withLock('example.test', async () => (ran = true)));
    expect(err).toBeInstanceOf(ConfigurationError);
    expect(err.message).toContain(lockFile());
    expect(err.message).toMatch(/symbolic link.*remove the link/);
    expect(Date.now() - started).toBeLessThan(timing.waitMs);
    expect(ran).toBe(false);
    untouched();
  });

  it('a lock file that is a FIFO does not hang the command', async () => {
    execFileSync('mkfifo', [lockFile()]);
    const err = await rejection(new FsRefreshLock(auth, timing).withLock('example.test', async () => 1));
    expect(err.message).toMatch(/not a regular file/);
  });
});

describe('the contexts file', () => {
  const yaml = 'current-context: dots\ncontexts:\n  - name: dots\n    context:\n      domain: dots.test\n';

  it('may be a dotfile symlink for reading; writing through it is refused, naming it; the target is unchanged', async () => {
    writeFileSync(target, yaml);
    chmodSync(target, 0o644);
    const path = join(dir, 'config.yaml');
    symlinkSync(target, path);
    const store = new YamlConfigStore(path);
    await expect(store.load()).resolves.toEqual({
      currentContext: 'dots',
      contexts: [{ name: 'dots', domain: 'dots.test' }],
    });
    const err = await rejection(store.save({ contexts: [] }));
    expect(err).toBeInstanceOf(ConfigurationError);
    expect(err.message).toContain(path);
    expect(err.message).toMatch(/symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe(yaml);
    expect(statSync(target).mode & 0o777).toBe(0o644);
  });

  it('a link to something that is not a regular file is an error, not a hang', async () => {
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    const path = join(dir, 'config.yaml');
    symlinkSync(join(dir, 'fifo'), path);
    expect((await rejection(new YamlConfigStore(path).load())).message).toMatch(/not a regular file/);
  });
});
