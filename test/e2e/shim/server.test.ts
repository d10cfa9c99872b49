import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readProcStat } from '../../../src/adapters/shim/os/proc-fs';
import { nativeFixture, RuntimeFixture } from '../support/runtimes';
import { SKIFF_BIN, socketAccepts, startShim } from '../support/shim-process';
import { waitFor } from '../../support/wait-for';

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

  describe('an address or state directory it cannot use: one line naming the path and why, exit 2, at once', () => {
    const serve = (address: string, stateDir = join(scratch, 's'), asNobody = false) => {
      const argv = [SKIFF_BIN, 'shim', 'serve', '--address', address, '--state-dir', stateDir];
      // Root may write anywhere: a permission test runs the shim as nobody.
      const [file, args] = asNobody
        ? ['setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...argv]]
        : [process.execPath, argv];
      const started = Date.now();
      const result = spawnSync(file, args, { encoding: 'utf8', timeout: 15_000 });
      return { ...result, ms: Date.now() - started };
    };
    const expectOneLine = (result: ReturnType<typeof serve>, text: RegExp) => {
      expect(result.signal).toBeNull(); // not killed by the time-out: it did not spin
      expect(result.status).toBe(2);
      expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(text)]);
      expect(result.stderr).not.toMatch(/No address added|\n\s+at /);
    };

    it("a directory under /proc (Node's recursive mkdir spins there)", () => {
      expectOneLine(
        serve('/proc/nope/s.sock'),
        /^skiff shim serve: cannot make the socket \/proc\/nope\/s\.sock: its directory \/proc\/nope: no such file or directory \(ENOENT\); choose another --address$/,
      );
      expectOneLine(
        serve(join(scratch, 'ok.sock'), '/proc/nope/state'),
        /cannot create --state-dir \/proc\/nope\/state: no such file/,
      );
    });

    it('a directory that is a file', () => {
      const file = join(scratch, 'a-file');
      writeFileSync(file, '');
      expectOneLine(serve(join(file, 's.sock')), /its directory .*a-file: not a directory \(ENOTDIR\)/);
    });

    it('a directory it may not write', () => {
      const readOnly = join(scratch, 'read-only');
      mkdirSync(readOnly, { mode: 0o555 });
      chmodSync(scratch, 0o755);
      const asRoot = process.getuid?.() === 0;
      const stateDir = join(scratch, 'state-anyone-may-write');
      mkdirSync(stateDir);
      chmodSync(stateDir, 0o777);
      const result = serve(join(readOnly, 's.sock'), stateDir, asRoot);
      expectOneLine(result, /its directory .*read-only: permission denied \(EACCES\); choose another --address$/);
    });
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
    expect(result.status).toBe(2);
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
    await waitFor('the task to be gone', () => readProcStat(pid) === undefined);
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

  it('on SIGINT, as on SIGTERM, ends its tasks, exits 0 and removes its socket', async () => {
    const shim = await startShim();
    const { pid } = await shim.client.create({ id: 'interrupted', bundle: fx.bundle(['sleep', '100']) });
    await shim.client.start('interrupted');
    shim.child.kill('SIGINT');
    expect(await shim.exited).toBe(0);
    expect(existsSync(shim.socket)).toBe(false);
    expect(readProcStat(pid)).toBeUndefined();
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
