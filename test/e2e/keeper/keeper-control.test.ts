import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  readlinkSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeControl } from '../../../src/adapters/shim/outbound/keeper/control-message';
import { nativeAddon } from '../../../src/adapters/shim/os/native-addon';
import { RuncBundleFactory, runcTestsEnabled } from '../../support/runc-bundles';
import { waitFor } from '../../support/wait-for';
import { closeAll, drain, fifo, PYTHON, ServingSide, TERMINAL_HELPER } from './control-support';
import { alive, ignoresSigterm, keeperPids, layout, Layout, openFds, serverPids } from './keeper-support';

/**
 * The pod keeper's control connection (docs/keeper-protocol.md, "The control connection"): a
 * real keeper started by `start`, and this test as the serving process with its side of the
 * protocol (src/adapters/shim/outbound/keeper/keeper-control.ts): launches, exits told until
 * acked across reconnections, release, a terminal, and malformed messages.
 */
const LINUX = process.platform === 'linux';
const NS = 'cns';
const IDLE_MS = 300;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const exitCode = (status: number) => (status >> 8) & 0xff;

if (!LINUX) process.stderr.write('keeper control suite not run: containerd-shim-skiff-v2 is Linux-only\n');

if (LINUX)
  describe("the pod keeper's control connection", () => {
    let l: Layout;
    let side: ServingSide;
    let dir: string;
    const fds: number[] = [];
    const kept: number[] = [];
    beforeEach(async () => {
      l = layout(NS);
      dir = mkdtempSync(join(tmpdir(), 'skiff-control-'));
      side = new ServingSide(l);
      // Its idle time short: only a test that closes containerd's connection meets it.
      // containerd started by systemd has NOTIFY_SOCKET (and hands its shims GOMAXPROCS=2).
      await side.start(NS, 'p1', undefined, {
        SKIFF_KEEPER_IDLE_MS: String(IDLE_MS),
        NOTIFY_SOCKET: '/run/systemd/notify',
        GOMAXPROCS: '2',
        SKIFF_TEST_KEPT: 'yes',
      });
    });
    afterEach(async () => {
      side.close();
      closeAll(fds);
      kept.splice(0).forEach((pid) => alive(pid) && process.kill(pid, 'SIGKILL'));
      const pids = [...keeperPids(l.address), ...serverPids(l)];
      pids.forEach((pid) => process.kill(pid, 'SIGKILL'));
      await waitFor('the keepers to end', () => pids.every((pid) => !alive(pid)));
      rmSync(l.root, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    });

    const writer = (path: string) => {
      const fd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
      fds.push(fd);
      return fd;
    };
    const held = (name: string) => {
      const f = fifo(dir, name);
      fds.push(f.fd);
      return f;
    };

    it('launches a program with its stdout, replies l with its pid, then tells its exit with status and time', async () => {
      const first = await side.next(0);
      expect(first.hellos).toEqual([[]]);
      const out = held('out');
      const before = Date.now() / 1000;
      const launched = await first.control.launch({
        key: 't1',
        argv: ['/bin/sh', '-c', 'echo out; exit 3'],
        fds: [{ role: '1', fd: writer(out.path) }],
      });
      expect(launched).toEqual({ status: 0, pid: expect.any(Number), error: '' });
      await waitFor('the exit', () => first.exits.length === 1);
      const [exit] = first.exits;
      expect({ key: exit.key, pid: exit.pid, code: exitCode(exit.status) }).toEqual({
        key: 't1',
        pid: launched.pid,
        code: 3,
      });
      expect(exit.at.seconds + exit.at.nanoseconds / 1e9).toBeGreaterThanOrEqual(before - 1);
      expect(exit.at.seconds).toBeLessThanOrEqual(Date.now() / 1000);
      expect(drain(out.fd)).toBe('out\n');
      // No such program, and a relative argv[0]: the keeper's part failed, the text says which.
      const missing = await first.control.launch({ key: 't2', argv: ['/nonexistent/prog'] });
      expect(missing).toEqual({ status: -1, pid: 0, error: 'cannot run /nonexistent/prog: No such file or directory' });
      const relative = await first.control.launch({ key: 't3', argv: ['sh'] });
      expect(relative.error).toBe('the program sh is not an absolute path');
    });

    it('keeps the daemon a program leaves behind with its pid file, as runc create does, and tells its exit', async () => {
      const first = await side.next(0);
      const pidFile = join(dir, 'init.pid');
      const launched = await first.control.launch({
        key: 'd1',
        pidFile,
        argv: ['/bin/sh', '-c', `(sleep 0.3; exit 7) & echo $! > ${pidFile}`],
      });
      expect(launched.status).toBe(0);
      expect(launched.pid).toBeGreaterThan(0);
      kept.push(launched.pid);
      expect(alive(launched.pid)).toBe(true);
      await waitFor('the daemon exit', () => first.exits.length === 1);
      expect([first.exits[0].key, first.exits[0].pid, exitCode(first.exits[0].status)]).toEqual([
        'd1',
        launched.pid,
        7,
      ]);
      // A program that fails is forgotten: its status, nothing kept, no exit told.
      const failed = await first.control.launch({ key: 'd2', pidFile, argv: ['/bin/sh', '-c', 'exit 1'] });
      expect(failed).toEqual({ status: 256, pid: 0, error: '' });
      const nopid = await first.control.launch({ key: 'd3', pidFile: join(dir, 'none'), argv: ['/bin/true'] });
      expect(nopid.error).toMatch(/^\/bin\/true exited 0 without a pid in .*none$/);
      // A daemon that died before its program exited (the keeper reaped it then): told at once after l.
      const early = join(dir, 'early.pid');
      const died = await first.control.launch({
        key: 'd5',
        pidFile: early,
        argv: ['/bin/sh', '-c', `sh -c '(sleep 0.1; exit 9) & echo $! > ${early}'; sleep 0.4`],
      });
      expect(died).toEqual({ status: 0, pid: expect.any(Number), error: '' });
      await waitFor('the early exit', () => first.exits.some((e) => e.key === 'd5'));
      expect(exitCode(first.exits.find((e) => e.key === 'd5')?.status ?? 0)).toBe(9);
      // A pid that is not the keeper's child (this test's own): its exit would never come.
      const foreign = join(dir, 'foreign.pid');
      writeFileSync(foreign, String(process.pid));
      const notChild = await first.control.launch({ key: 'd4', pidFile: foreign, argv: ['/bin/true'] });
      expect(notChild).toEqual({
        status: -1,
        pid: 0,
        error: `pid ${process.pid} in ${foreign} is not a process the keeper can reap`,
      });
    });

    it('says hello with what runs on each new connection, and tells an exit that happened while disconnected until it is acked', async () => {
      const first = await side.next(0);
      const launched = await first.control.launch({ key: 'k1', argv: ['/bin/sh', '-c', 'sleep 0.6; exit 5'] });
      kept.push(launched.pid);
      first.control.close(); // the serving process's end of it is gone, as after a SIGKILL
      const second = await side.next(1);
      expect(second.hellos).toEqual([[{ key: 'k1', pid: launched.pid }]]);
      side.accepting = false;
      second.control.close();
      await waitFor('the kept process to exit', () => !alive(launched.pid));
      await sleep(100);
      side.accepting = true;
      const count = side.controls.length;
      const third = await side.next(count);
      await waitFor('the exit on the new connection', () => third.exits.length === 1);
      expect(third.hellos).toEqual([[]]);
      expect([third.exits[0].key, exitCode(third.exits[0].status)]).toEqual(['k1', 5]);
      third.control.close();
      const fourth = await side.next(count + 1);
      await waitFor('the exit again', () => fourth.exits.length === 1);
      expect(fourth.exits[0]).toEqual(third.exits[0]);
      fourth.control.ack('k1');
      await sleep(50);
      fourth.control.close();
      const fifth = await side.next(count + 2);
      await sleep(200);
      expect([fifth.hellos, fifth.exits]).toEqual([[[]], []]);
    });

    it('comes back after a loss while a relay is connected, holding nothing yet (a Create on that relay waits for it)', async () => {
      const first = await side.next(0);
      expect(first.hellos).toEqual([[]]);
      first.control.close();
      const second = await side.next(1);
      expect(second.hellos).toEqual([[]]);
    });

    it("places roles 3 4 5 on fds 3 4 5 with the environment given (a log URI's logger), and D ends a program kept itself with SIGTERM", async () => {
      const first = await side.next(0);
      const [keeper] = keeperPids(l.address);
      const baseline = openFds(keeper);
      const addon = nativeAddon();
      const [out, err, ready] = [addon.pipe(), addon.pipe(), addon.pipe()];
      const launched = await first.control.launch({
        key: 'g1@log',
        env: ['CONTAINER_ID=g1', 'CONTAINER_NAMESPACE=n'],
        argv: [
          '/bin/sh',
          '-c',
          // As a logger: reads 3 and 4, writes 5; its environment first.
          'tr "\\0" " " < /proc/$$/environ >&5; head -c 3 <&3 >&5; head -c 2 <&4 >&5; exec /bin/sleep 30',
        ],
        fds: [
          { role: '3', fd: out[0] },
          { role: '4', fd: err[0] },
          { role: '5', fd: ready[1] },
        ],
      });
      kept.push(launched.pid);
      expect(launched.error).toBe('');
      closeSync(out[0]);
      closeSync(err[0]);
      closeSync(ready[1]);
      writeSync(out[1], 'abc');
      writeSync(err[1], 'de');
      const expected = 'CONTAINER_ID=g1 CONTAINER_NAMESPACE=n abcde';
      let got = '';
      const buf = Buffer.alloc(256);
      while (got.length < expected.length) got += buf.subarray(0, readSync(ready[0], buf)).toString();
      expect(got).toBe(expected);
      // Nothing but 0-2 and its three roles (the sleep it became holds what it had): the keeper's own stayed behind.
      // (The shell's own saved descriptors come and go while it redirects: read once it is the sleep.)
      await waitFor(
        'the program to be the sleep',
        () => readFileSync(`/proc/${launched.pid}/comm`, 'utf8') === 'sleep\n',
      );
      expect(
        readdirSync(`/proc/${launched.pid}/fd`)
          .map(Number)
          .sort((a, b) => a - b),
      ).toEqual([0, 1, 2, 3, 4, 5]);
      closeAll([out[1], err[1], ready[0]]);
      first.control.release('g1@log');
      await waitFor('D to end the program with SIGTERM', () => !alive(launched.pid));
      await waitFor('D to close the rest', () => openFds(keeper) === baseline);
    });

    it('ends a released logger that ignores SIGTERM with SIGKILL 12 s later, as the runc shim does, its key free meanwhile', async () => {
      const first = await side.next(0);
      const stubborn = ['/bin/sh', '-c', 'trap "" TERM; while :; do sleep 0.05; done'];
      const launched = await first.control.launch({ key: 'g2@log', argv: stubborn });
      kept.push(launched.pid);
      // Released before the shell ran its trap, the logger would end at the SIGTERM.
      await waitFor('the logger to ignore SIGTERM', () => ignoresSigterm(launched.pid));
      const released = Date.now();
      first.control.release('g2@log');
      await sleep(1000);
      expect(alive(launched.pid)).toBe(true);
      // The key answers to a new launch at once (a task of the same id, made again).
      const again = await first.control.launch({ key: 'g2@log', argv: ['/bin/sleep', '30'] });
      kept.push(again.pid);
      expect(again.error).toBe('');
      first.control.release('g2@log');
      await waitFor('the SIGKILL', () => !alive(launched.pid), 15_000);
      expect(Date.now() - released).toBeGreaterThanOrEqual(11_500);
      // Its reap is nobody's exit: no `E` for it.
      expect(first.exits.filter((e) => e.key === 'g2@log')).toEqual([]);
    }, 30_000);

    it('D of a pid-file process that still runs, or is still launching, ends it with SIGKILL and tells no exit', async () => {
      const first = await side.next(0);
      const [keeper] = keeperPids(l.address);
      const baseline = openFds(keeper);
      // Running: an exec whose Start a dead serving process left half-done, deleted.
      const pidFile = join(dir, 'k1.pid');
      const out = held('k1');
      const running = await first.control.launch({
        key: 'k1',
        pidFile,
        argv: ['/bin/sh', '-c', `sleep 30 & echo $! > ${pidFile}`],
        fds: [{ role: 'H', fd: out.fd }],
      });
      kept.push(running.pid);
      expect(running.error).toBe('');
      first.control.release('k1');
      await waitFor('the released process to end', () => !alive(running.pid));
      await waitFor('its descriptors to close', () => openFds(keeper) === baseline);
      // Launching: released before the program wrote its pid file; what it leaves is ended.
      const slowFile = join(dir, 'k2.pid');
      const launching = first.control.launch({
        key: 'k2',
        pidFile: slowFile,
        argv: ['/bin/sh', '-c', `sleep 0.3; sleep 30 & echo $! > ${slowFile}`],
      });
      await sleep(50);
      first.control.release('k2');
      const late = await launching;
      expect(late).toEqual({ status: 0, pid: expect.any(Number), error: '' });
      kept.push(late.pid);
      await waitFor('the process the launch left to end', () => !alive(late.pid));
      await sleep(100);
      expect(first.exits.filter((e) => e.key === 'k1' || e.key === 'k2')).toEqual([]);
      // Neither key is held: both launch again, and the keeper holds no process of them.
      for (const key of ['k1', 'k2']) expect((await first.control.launch({ key, argv: ['/bin/true'] })).error).toBe('');
      first.control.close();
      expect((await side.next(1)).hellos).toEqual([[]]);
    });

    it('D closes every descriptor of a key: its held FIFO, its stdin keep-alive', async () => {
      const first = await side.next(0);
      const [keeper] = keeperPids(l.address);
      const baseline = openFds(keeper);
      const out = held('o');
      const input = held('i');
      const launched = await first.control.launch({
        key: 'r1',
        argv: ['/bin/sleep', '30'],
        fds: [
          { role: '1', fd: writer(out.path) },
          { role: 'H', fd: out.fd },
          { role: 'I', fd: writer(input.path) },
        ],
      });
      kept.push(launched.pid);
      expect(launched.error).toBe('');
      expect(openFds(keeper)).toBe(baseline + 2);
      first.control.closeStdin('r1');
      await waitFor('C to close the stdin keep-alive', () => openFds(keeper) === baseline + 1);
      first.control.release('r1');
      await waitFor('D to close the rest', () => openFds(keeper) === baseline);
      // An exited key's H stays until its FIFO is read empty, then closes by itself.
      const q = held('q');
      writeSync(writer(q.path), 'left');
      const done = await first.control.launch({ key: 'r2', argv: ['/bin/true'], fds: [{ role: 'H', fd: q.fd }] });
      await waitFor('the exit', () => first.exits.some((e) => e.key === 'r2'));
      await sleep(100);
      expect(openFds(keeper)).toBe(baseline + 1);
      expect(drain(q.fd)).toBe('left');
      await waitFor('the drained H to close', () => openFds(keeper) === baseline);
      expect(done.pid).toBeGreaterThan(0);
    });

    it('leaks no descriptor and no key over many launches, exits, acks and releases', async () => {
      const first = await side.next(0);
      const [keeper] = keeperPids(l.address);
      const baseline = openFds(keeper);
      const rss = () => Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${keeper}/status`, 'utf8'))?.[1]);
      const round = async (i: number) => {
        const out = fifo(dir, `o${i}`);
        const w = openSync(out.path, constants.O_WRONLY | constants.O_NONBLOCK);
        const launched = await first.control.launch({
          key: `m${i}`,
          argv: ['/bin/sh', '-c', 'echo x'],
          fds: [
            { role: '1', fd: w },
            { role: 'H', fd: out.fd },
          ],
        });
        closeSync(w);
        await waitFor('the exit', () => first.exits.some((e) => e.key === `m${i}`));
        first.control.ack(`m${i}`);
        first.control.release(`m${i}`);
        closeSync(out.fd);
        return launched.pid;
      };
      for (let i = 0; i < 10; i++) await round(i);
      const warm = rss();
      for (let i = 10; i < 60; i++) await round(i);
      await waitFor('the descriptors back to the baseline', () => openFds(keeper) === baseline);
      expect(rss() - warm).toBeLessThan(256); // KiB
    });

    it('copies a terminal both ways, resizes it, and tells the exit after its last output', async () => {
      if (PYTHON === undefined) throw new Error('python3 is needed to stand in for runc with a console socket');
      const first = await side.next(0);
      const helper = join(dir, 'helper.py');
      writeFileSync(helper, TERMINAL_HELPER);
      const out = held('tty-out');
      const input = held('tty-in');
      const consoleSocket = join(dir, 'console.sock');
      const pidFile = join(dir, 'tty.pid');
      const launched = await first.control.launch({
        key: 'tty',
        pidFile,
        consoleSocket,
        argv: [PYTHON, helper, consoleSocket, pidFile, 'read line; stty size; echo got $line; exit 4'],
        fds: [
          { role: 'O', fd: writer(out.path) },
          { role: 'N', fd: input.fd },
        ],
      });
      expect(launched).toEqual({ status: 0, pid: expect.any(Number), error: '' });
      kept.push(launched.pid);
      expect(existsSync(consoleSocket)).toBe(false);
      expect(await first.control.resize('tty', 100, 40)).toBe('');
      expect(await first.control.resize('nokey', 1, 1)).toBe('no such key');
      writeSync(writer(input.path), 'hello\n');
      await waitFor('the exit', () => first.exits.length === 1);
      expect(exitCode(first.exits[0].status)).toBe(4);
      const text = drain(out.fd);
      expect(text).toContain('40 100');
      expect(text).toContain('got hello');
    });

    it("holds a terminal's output back while its FIFO is full, drops none of it, and answers meanwhile", async () => {
      if (PYTHON === undefined) throw new Error('python3 is needed to stand in for runc with a console socket');
      const first = await side.next(0);
      const helper = join(dir, 'helper.py');
      writeFileSync(helper, TERMINAL_HELPER);
      const out = held('full-out');
      const consoleSocket = join(dir, 'full.sock');
      const pidFile = join(dir, 'full.pid');
      const size = 300_000;
      const launched = await first.control.launch({
        key: 'full',
        pidFile,
        consoleSocket,
        argv: [PYTHON, helper, consoleSocket, pidFile, `head -c ${size} /dev/zero | tr '\\0' x; exit 0`],
        fds: [{ role: 'O', fd: writer(out.path) }],
      });
      expect(launched.error).toBe('');
      kept.push(launched.pid);
      // The FIFO (64 KiB) is full long before the output ends, and nobody reads it for a second.
      await sleep(1000);
      const asked = Date.now();
      expect(await first.control.resize('full', 90, 30)).toBe('');
      expect(Date.now() - asked).toBeLessThan(100);
      expect(first.exits).toEqual([]);
      let text = '';
      await waitFor(
        () => `all of the output (${text.length} of ${size} bytes so far)`,
        () => (text += drain(out.fd)).length >= size,
      );
      expect(text).toBe('x'.repeat(size));
      await waitFor('the exit', () => first.exits.length === 1);
      expect(exitCode(first.exits[0].status)).toBe(0);
    });

    it('holds a paste into a terminal that does not read it yet: answers meanwhile, stops reading N while 64 KiB wait, drops none of it', async () => {
      if (PYTHON === undefined) throw new Error('python3 is needed to stand in for runc with a console socket');
      const first = await side.next(0);
      const helper = join(dir, 'helper.py');
      writeFileSync(helper, TERMINAL_HELPER);
      const out = held('paste-out');
      const input = held('paste-in');
      const consoleSocket = join(dir, 'paste.sock');
      const pidFile = join(dir, 'paste.pid');
      const size = 300_000;
      // Raw and silent, so that every byte counts as it is; it reads nothing for 2 s.
      const script = `stty raw -echo; echo ready; sleep 2; echo got $(head -c ${size} | tr -cd x | wc -c); exit 0`;
      const launched = await first.control.launch({
        key: 'paste',
        pidFile,
        consoleSocket,
        argv: [PYTHON, helper, consoleSocket, pidFile, script],
        fds: [
          { role: 'O', fd: writer(out.path) },
          { role: 'N', fd: input.fd },
        ],
      });
      expect(launched.error).toBe('');
      kept.push(launched.pid);
      let shown = '';
      // Pasted once the terminal is raw (a canonical one holds 4095 bytes of a line, then drops them).
      await waitFor('the terminal to be raw', () => (shown += drain(out.fd)).includes('ready'));
      const into = writer(input.path);
      const paste = Buffer.alloc(size, 'x');
      let sent = 0;
      const pasting = (async () => {
        while (sent < size) {
          try {
            sent += writeSync(into, paste, sent, Math.min(65536, size - sent));
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
            await sleep(5);
          }
        }
      })();
      await sleep(700);
      // The terminal is full: the keeper holds 64 KiB and reads N no more, so the FIFO is full too.
      expect(sent).toBeLessThan(size);
      for (let i = 0; i < 5; i++) {
        const asked = Date.now();
        expect(await first.control.resize('paste', 90, 30 + i)).toBe('');
        expect(Date.now() - asked).toBeLessThan(100);
      }
      await pasting;
      await waitFor('the exit', () => first.exits.length === 1, 15_000);
      expect(exitCode(first.exits[0].status)).toBe(0);
      expect(shown + drain(out.fd)).toContain(`got ${size}`);
    }, 30_000);

    it('stays past its idle time and through SIGTERM while it holds a key, without any containerd connection; leaves once it is released', async () => {
      const first = await side.next(0);
      const [keeper] = keeperPids(l.address);
      const launched = await first.control.launch({ key: 'i1', argv: ['/bin/sleep', '30'] });
      kept.push(launched.pid);
      side.closeContainerd();
      await sleep(IDLE_MS * 2);
      process.kill(keeper, 'SIGTERM');
      await sleep(100);
      expect(alive(keeper)).toBe(true);
      process.kill(launched.pid, 'SIGKILL');
      await waitFor('the exit', () => first.exits.length === 1);
      first.control.release('i1');
      await waitFor('the keeper to leave after its idle time', () => !alive(keeper), IDLE_MS * 5);
    });

    /**
     * `S` with a stand-in for runc's init: a daemon whose pid file the launch reads (as runc
     * create's), which opens the fifo for writing (blocking until a reader comes), writes its
     * byte and closes its end as the init does at its exec.
     */
    async function standIn(key: string, script: string) {
      const first = side.controls[0]?.control === undefined ? await side.next(0) : side.controls[0];
      const fifoPath = join(dir, `${key}.fifo`);
      execFileSync('mkfifo', ['-m', '0622', fifoPath]);
      const pidFile = join(dir, `${key}.pid`);
      const launched = await first.control.launch({
        key,
        pidFile,
        argv: ['/bin/sh', '-c', `(${script}) & echo $! > ${pidFile}`, 'init', fifoPath],
      });
      kept.push(launched.pid);
      return { control: first.control, exits: first.exits, fifo: fifoPath, pid: launched.pid };
    }

    it("S reads the init's byte, removes the fifo, and answers started once the write end closes (its exec)", async () => {
      const init = await standIn('s1', 'exec 3>"$1"; printf 0 >&3; sleep 0.3; exec 3>&-; sleep 30');
      const asked = Date.now();
      expect(await init.control.start('s1', init.fifo)).toEqual({ outcome: 'started', error: '' });
      expect(Date.now() - asked).toBeGreaterThanOrEqual(250);
      expect(existsSync(init.fifo)).toBe(false);
      expect(alive(init.pid)).toBe(true);
    });

    it('S answers dead when the init ends without its byte, started when it ends after it', async () => {
      const dead = await standIn('s2', 'sleep 0.2; exit 3');
      expect(await dead.control.start('s2', dead.fifo)).toEqual({ outcome: 'dead', error: '' });
      expect(existsSync(dead.fifo)).toBe(true);
      const wrote = await standIn('s3', 'sleep 0.2; exec 3>"$1"; printf 0 >&3; exit 4');
      expect(await wrote.control.start('s3', wrote.fifo)).toEqual({ outcome: 'started', error: '' });
      // An init already gone when S comes: what the fifo holds decides (nothing: dead).
      await waitFor('the exits', () => dead.exits.length === 2);
      const gone = await standIn('s4', 'sleep 0.1; exit 5');
      await waitFor('its exit', () => gone.exits.some((exit) => exit.key === 's4'));
      expect(await gone.control.start('s4', gone.fifo)).toEqual({ outcome: 'dead', error: '' });
    });

    it('S answers absent without a fifo, failed for a key it does not hold or a second start, and D ends one', async () => {
      const init = await standIn('s5', 'sleep 30');
      expect(await init.control.start('s5', join(dir, 'none.fifo'))).toEqual({ outcome: 'absent', error: '' });
      expect(await init.control.start('nokey', init.fifo)).toEqual({ outcome: 'failed', error: 'no such key' });
      const pending = init.control.start('s5', init.fifo);
      expect(await init.control.start('s5', init.fifo)).toEqual({
        outcome: 'failed',
        error: 'a start of the key is in progress',
      });
      // Released while it waits: no answer comes, and the keeper holds nothing of it.
      let answered = false;
      // It rejects once the control connection closes, after the test.
      pending.then(() => (answered = true)).catch(() => undefined);
      init.control.release('s5');
      const keeper = keeperPids(l.address)[0];
      const holdsFifo = () =>
        readdirSync(`/proc/${keeper}/fd`).some((fd) => {
          try {
            return readlinkSync(`/proc/${keeper}/fd/${fd}`) === init.fifo;
          } catch {
            return false;
          }
        });
      await waitFor('the fifo to be closed', () => !holdsFifo());
      await sleep(100);
      expect(answered).toBe(false);
    });

    it("gives what it launches the environment containerd's runc shim gives runc: GOMAXPROCS=4, no NOTIFY_SOCKET", async () => {
      const first = await side.next(0);
      const out = held('env');
      const launched = await first.control.launch({
        key: 'env',
        argv: ['/usr/bin/env'],
        fds: [{ role: '1', fd: writer(out.path) }],
      });
      expect(launched.error).toBe('');
      await waitFor('its exit', () => first.exits.some((exit) => exit.key === 'env'));
      const lines = drain(out.fd).split('\n');
      expect(lines).toContain('GOMAXPROCS=4');
      expect(lines.filter((line) => line.startsWith('NOTIFY_SOCKET='))).toEqual([]);
      expect(lines).toContain('SKIFF_TEST_KEPT=yes');
    });

    it('closes only the control connection on a malformed message, and says hello again on the next', async () => {
      const first = await side.next(0);
      const launched = await first.control.launch({ key: 'b1', argv: ['/bin/sleep', '30'] });
      kept.push(launched.pid);
      const bad = [
        encodeControl('X', ['k']), // a type it does not know
        encodeControl('A', ['k', 'extra']), // a wrong field count
        Buffer.from([0x00, 0x20, 0x00, 0x00, 0x41]), // over 1 MiB
        encodeControl('L', ['1', 'k', '', '', '01', '/bin/true']), // roles without their descriptors
      ];
      for (const [i, message] of bad.entries()) {
        const seen = side.controls[i];
        const fd = (seen.control as unknown as { socket: { _handle: { fd: number } } }).socket._handle.fd;
        nativeAddon().sendWithFds(fd, message, []);
        await waitFor(`malformed message ${i + 1} to close the connection`, () => seen.closed);
        const next = await side.next(i + 1);
        expect(next.hellos).toEqual([[{ key: 'b1', pid: launched.pid }]]);
      }
      expect(alive(launched.pid)).toBe(true);
      expect(keeperPids(l.address)).toHaveLength(1);
    });
  });

/** `runc create` itself through the keeper, as the runc runtime will launch it (SKIFF_RUNC_TESTS=1). */
if (LINUX && runcTestsEnabled())
  describe("the pod keeper's control connection with runc", () => {
    let l: Layout;
    let side: ServingSide;
    let bundles: RuncBundleFactory;
    const fds: number[] = [];
    beforeEach(async () => {
      l = layout(NS);
      bundles = new RuncBundleFactory();
      side = new ServingSide(l);
      await side.start(NS, 'r1');
    });
    afterEach(async () => {
      side.close();
      closeAll(fds);
      const pids = keeperPids(l.address);
      pids.forEach((pid) => process.kill(pid, 'SIGKILL'));
      await waitFor('the keepers to end', () => pids.every((pid) => !alive(pid)));
      rmSync(l.root, { recursive: true, force: true });
      bundles.cleanup();
    });

    /** `runc create` through the keeper, of a container running `args`; resolves its launch and runc's root. */
    async function runcCreate(key: string, args: string[]) {
      const first = side.controls[0]?.control === undefined ? await side.next(0) : side.controls[0];
      const bundle = bundles.make(args, { pidNamespace: true });
      const root = join(bundles.root, 'runc');
      const pidFile = join(bundle, 'init.pid');
      const runc = execFileSync('sh', ['-c', 'command -v runc'], { encoding: 'utf8' }).trim();
      const launched = await first.control.launch({
        key,
        pidFile,
        argv: [runc, '--root', root, 'create', '--bundle', bundle, '--pid-file', pidFile, key],
      });
      expect(launched).toEqual({ status: 0, pid: expect.any(Number), error: '' });
      const state = () =>
        (JSON.parse(execFileSync(runc, ['--root', root, 'state', key], { encoding: 'utf8' })) as { status: string })
          .status;
      const remove = () => execFileSync(runc, ['--root', root, 'delete', '--force', key]);
      return { first, pid: launched.pid, fifo: join(root, key, 'exec.fifo'), state, remove };
    }

    it("S starts a container runc created, as runc start does: runc then reads it running, its program exec'd", async () => {
      const c = await runcCreate('r2', ['sleep', '1000']);
      try {
        expect(c.state()).toBe('created');
        expect(await c.first.control.start('r2', c.fifo)).toEqual({ outcome: 'started', error: '' });
        expect(c.state()).toBe('running');
        // Its end of the fifo closes inside the exec, a moment before the kernel names it after the program.
        const comm = () => readFileSync(`/proc/${c.pid}/comm`, 'utf8').trim();
        await waitFor(
          () => `the init to be sleep (it is ${comm()})`,
          () => comm() === 'sleep',
          1000,
        );
      } finally {
        c.remove();
      }
    });

    it('S of a container whose init was killed first answers dead, as runc start would', async () => {
      const c = await runcCreate('r3', ['sleep', '1000']);
      try {
        process.kill(c.pid, 'SIGKILL');
        expect(await c.first.control.start('r3', c.fifo)).toEqual({ outcome: 'dead', error: '' });
      } finally {
        c.remove();
      }
    });

    it('keeps the init runc create leaves behind, with its terminal, and tells its exit', async () => {
      const first = await side.next(0);
      const bundle = bundles.make(['sh', '-c', 'read line; echo got $line; exit 6'], { terminal: true });
      const root = join(bundles.root, 'runc');
      const out = fifo(bundles.root, 'out');
      const input = fifo(bundles.root, 'in');
      const writeOut = openSync(out.path, constants.O_WRONLY | constants.O_NONBLOCK);
      fds.push(out.fd, input.fd, writeOut);
      const pidFile = join(bundle, 'init.pid');
      const consoleSocket = join(bundles.root, 'console.sock');
      const runc = execFileSync('sh', ['-c', 'command -v runc'], { encoding: 'utf8' }).trim();
      const launched = await first.control.launch({
        key: 'c1',
        pidFile,
        consoleSocket,
        argv: [
          runc,
          '--root',
          root,
          'create',
          '--bundle',
          bundle,
          '--pid-file',
          pidFile,
          '--console-socket',
          consoleSocket,
          'c1',
        ],
        fds: [
          { role: 'O', fd: writeOut },
          { role: 'N', fd: input.fd },
        ],
      });
      expect(launched).toEqual({ status: 0, pid: expect.any(Number), error: '' });
      expect(await first.control.resize('c1', 120, 30)).toBe('');
      execFileSync(runc, ['--root', root, 'start', 'c1']);
      writeSync(input.fd, 'hi\n');
      await waitFor('the init to exit', () => first.exits.length === 1);
      expect([first.exits[0].pid, exitCode(first.exits[0].status)]).toEqual([launched.pid, 6]);
      expect(drain(out.fd)).toContain('got hi');
      execFileSync(runc, ['--root', root, 'delete', 'c1']);
    });
  });
