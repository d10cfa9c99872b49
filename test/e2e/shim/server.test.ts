import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readProcStat } from '../../../src/adapters/shim/helpers/proc-fs';
import { nativeFixture, RuntimeFixture } from '../support/runtimes';
import { SKIFF_BIN, socketAccepts, startShim, waitFor } from '../support/shim-process';

describe('the shim process (socket, shutdown, signals)', () => {
  let fx: RuntimeFixture;
  const scratch = mkdtempSync(join(tmpdir(), 'skiff-server-'));

  beforeAll(() => {
    fx = nativeFixture();
  });
  afterAll(() => {
    fx.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('creates the socket 0600 in a directory it creates 0700', async () => {
    const shim = await startShim();
    expect(statSync(shim.socket).mode & 0o777).toBe(0o600);
    expect(statSync(join(shim.dir, 'run')).mode & 0o777).toBe(0o700);
    await shim.stop();
  });

  it('refuses to start on a socket a live shim serves, and leaves that shim alone', async () => {
    const shim = await startShim();
    const second = spawnSync(
      process.execPath,
      [SKIFF_BIN, 'shim', 'serve', '--address', shim.socket, '--state-dir', shim.stateDir],
      { encoding: 'utf8' },
    );
    expect(second.status).not.toBe(0);
    expect(second.stderr).toContain('already serving');
    expect(second.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(await socketAccepts(shim.socket)).toBe(true);
    await shim.stop();
  });

  it('replaces a stale socket left by a crashed shim', async () => {
    const crashed = await startShim();
    crashed.child.kill('SIGKILL');
    await crashed.exited;
    expect(existsSync(crashed.socket)).toBe(true);
    expect(await socketAccepts(crashed.socket)).toBe(false);

    const replacement = await startShim('native', [], crashed.dir);
    expect(replacement.socket).toBe(crashed.socket);
    const { pid } = await replacement.client.create({ id: 'after-crash', bundle: fx.bundle(['true']) });
    expect(pid).toBeGreaterThan(0);
    await replacement.client.delete('after-crash');
    await replacement.stop();
  });

  it('refuses a path that exists and is not a socket, without touching it', () => {
    const path = join(scratch, 'not-a-socket');
    writeFileSync(path, 'precious');
    const result = spawnSync(
      process.execPath,
      [SKIFF_BIN, 'shim', 'serve', '--address', path, '--state-dir', join(scratch, 's')],
      { encoding: 'utf8' },
    );
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('not a socket');
    expect(statSync(path).isFile()).toBe(true);
  });

  it('binds its socket before loading the rest, and removes it again when it cannot start after all', () => {
    const blocker = join(scratch, 'a-file');
    writeFileSync(blocker, '');
    const socket = join(scratch, 'late-failure.sock');
    const result = spawnSync(
      process.execPath,
      [SKIFF_BIN, 'shim', 'serve', '--address', socket, '--state-dir', join(blocker, 'state')],
      { encoding: 'utf8' },
    );
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^skiff shim serve: .*a-file/)]);
    expect(existsSync(socket)).toBe(false);
  });

  it('keeps serving after Shutdown while a task is left, exits 0 and removes its socket once none is', async () => {
    const shim = await startShim();
    await shim.client.create({ id: 'left', bundle: fx.bundle(['true']) });
    await shim.client.shutdown('left');
    expect(await socketAccepts(shim.socket)).toBe(true);
    await shim.client.start('left');
    await shim.client.wait('left');
    await shim.client.delete('left');
    await shim.client.shutdown('left').catch(() => undefined); // the reply may race the exit
    expect(await shim.exited).toBe(0);
    expect(existsSync(shim.socket)).toBe(false);
    await shim.stop();
  });

  it('kills what is left and exits on Shutdown with now', async () => {
    const shim = await startShim();
    const { pid } = await shim.client.create({ id: 'doomed', bundle: fx.bundle(['sleep', '100']) });
    await shim.client.start('doomed');
    await shim.client.shutdown('doomed', true).catch(() => undefined);
    expect(await shim.exited).toBe(0);
    await waitFor(() => readProcStat(pid) === undefined, 'the task to be gone');
    await shim.stop();
  });

  it('on SIGTERM ends live tasks (SIGTERM, then SIGKILL after the grace), exits 0 and removes its socket', async () => {
    const shim = await startShim();
    const { pid: polite } = await shim.client.create({ id: 'polite', bundle: fx.bundle(['sleep', '100']) });
    await shim.client.start('polite');
    // This one ignores SIGTERM, so only the SIGKILL after the grace ends it.
    const { pid: stubborn } = await shim.client.create({
      id: 'stubborn',
      bundle: fx.bundle(['sh', '-c', 'trap "" TERM; while true; do sleep 0.05; done']),
    });
    await shim.client.start('stubborn');
    await shim.client.create({ id: 'never-started', bundle: fx.bundle(['sleep', '100']) });
    shim.child.kill('SIGTERM');
    expect(await shim.exited).toBe(0);
    expect(existsSync(shim.socket)).toBe(false);
    for (const pid of [polite, stubborn]) expect(readProcStat(pid)).toBeUndefined();
    await shim.stop();
  });

  it('survives malformed bytes sent straight to the socket and keeps serving', async () => {
    const shim = await startShim();
    await new Promise<void>((resolve) => {
      const s = connect(shim.socket, () => {
        s.write(Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'));
        s.write(Buffer.alloc(64, 0xff));
        setTimeout(() => {
          s.destroy();
          resolve();
        }, 100);
      });
      s.on('error', () => resolve());
    });
    const { pid } = await shim.client.create({ id: 'after-garbage', bundle: fx.bundle(['true']) });
    expect(pid).toBeGreaterThan(0);
    await shim.client.delete('after-garbage');
    await shim.stop();
  });
});
