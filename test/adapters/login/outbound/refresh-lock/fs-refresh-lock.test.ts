import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError } from '../../../../../src/domain/shared/errors';
import { FsRefreshLock } from '../../../../../src/adapters/login/outbound/refresh-lock/fs-refresh-lock';

describe('the refresh lock file', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'skiff-lock-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const timing = { waitMs: 2000, staleMs: 60_000, pollMs: 5 };

  it('serialises holders of the same domain and removes the lock after', async () => {
    const lock = new FsRefreshLock(dir, timing);
    const order: string[] = [];
    const hold = (name: string) =>
      lock.withLock('example.com', async () => {
        order.push(`${name} in`);
        await new Promise((r) => setTimeout(r, 30));
        order.push(`${name} out`);
      });
    await Promise.all([hold('a'), hold('b')]);
    expect(order).toEqual(['a in', 'a out', 'b in', 'b out']);
    expect(existsSync(join(dir, 'example.com.lock'))).toBe(false);
  });

  it('different domains do not wait for each other', async () => {
    const lock = new FsRefreshLock(dir, timing);
    let inner = false;
    await lock.withLock('a.org', () => lock.withLock('b.org', async () => (inner = true)));
    expect(inner).toBe(true);
  });

  it('is released when the work fails', async () => {
    const lock = new FsRefreshLock(dir, timing);
    await expect(lock.withLock('x', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(lock.withLock('x', async () => 'again')).resolves.toBe('again');
  });

  it('breaks a lock left by a process that died', async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'x.lock'), `999999 ${Date.now()}`);
    await expect(new FsRefreshLock(dir, timing).withLock('x', async () => 'ok')).resolves.toBe('ok');
  });

  it('breaks a lock older than the stale age even if its pid lives', async () => {
    writeFileSync(join(dir, 'x.lock'), `${process.pid} ${Date.now() - 120_000}`);
    await expect(new FsRefreshLock(dir, timing).withLock('x', async () => 'ok')).resolves.toBe('ok');
  });

  it('waits for a live holder, then gives up with an error naming the lock', async () => {
    writeFileSync(join(dir, 'x.lock'), `${process.pid} ${Date.now()}`);
    const err = await new FsRefreshLock(dir, { waitMs: 100, staleMs: 60_000, pollMs: 5 })
      .withLock('x', async () => 'never')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigurationError);
    expect((err as Error).message).toContain(join(dir, 'x.lock'));
  });

  it('a fresh empty lock (being written) is not judged stale', async () => {
    writeFileSync(join(dir, 'x.lock'), '');
    const now = new Date();
    utimesSync(join(dir, 'x.lock'), now, now);
    await expect(
      new FsRefreshLock(dir, { waitMs: 100, staleMs: 60_000, pollMs: 5 }).withLock('x', async () => 'never'),
    ).rejects.toThrow(/lock/);
  });
});
