import { execFileSync, spawnSync } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer, Socket } from 'node:net';
import { join } from 'node:path';
import { waitFor } from '../../support/wait-for';
import { frame, requestFrame, WireConnection } from '../support/ttrpc-wire';
import { task } from '../../../src/adapters/shim/wire/proto/generated/task/v2/shim';
import {
  alive,
  BUILT_SHIM,
  keeperPids,
  layout,
  Layout,
  openFds,
  outcome,
  parentAndSession,
  relayedInFlight,
  serverPids,
  groupServers,
  start,
  TaskCalls,
} from './keeper-support';

/**
 * The pod keeper (native/keeper/, docs/keeper-protocol.md) as `start` runs it with
 * SKIFF_KEEPER=1, in front of the real serving process (bin/containerd-daemon.js, which
 * the keeper starts), without a containerd: calls are made by a ttrpc client as containerd's.
 */
const LINUX = process.platform === 'linux';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NS = 'kns';
const rssKiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
const held = (pid: number) => readdirSync(`/proc/${pid}/fd`).map((fd) => readlinkSync(`/proc/${pid}/fd/${fd}`));

if (!LINUX) process.stderr.write('keeper suite not run: containerd-shim-skiff-v2 is Linux-only\n');

if (LINUX)
  describe('the pod keeper', () => {
    const made: Layout[] = [];
    const clients: TaskCalls[] = [];
    const fresh = () => {
      const l = layout(NS);
      made.push(l);
      return l;
    };
    const calls = (socket: string) => {
      const c = new TaskCalls(socket);
      clients.push(c);
      return c;
    };
    afterEach(async () => {
      clients.splice(0).forEach((c) => c.close());
      for (const l of made.splice(0)) {
        const pids = [...keeperPids(l.address), ...serverPids(l)];
        pids.forEach((pid) => process.kill(pid, 'SIGKILL'));
        await waitFor('the keepers and servers to end', () => pids.every((pid) => !alive(pid)));
        rmSync(l.root, { recursive: true, force: true });
      }
    });

    it('is started once per pod, away from start (its own session, not its child), and relays to the serving process it started', async () => {
      const l = fresh();
      const pod = { 'io.kubernetes.cri.sandbox-id': 'sb1' };
      const first = start(BUILT_SHIM, l, NS, 'sb1', {}, pod);
      expect([first.status, first.stderr]).toEqual([0, '']);
      expect(first.stdout).toMatch(/^unix:\/\/.*\/state\/skiff\/k-[0-9a-f]{16}\.sock$/);
      expect(statSync(first.socket).mode & 0o777).toBe(0o600);
      const second = start(BUILT_SHIM, l, NS, 'c2', {}, pod);
      const other = start(BUILT_SHIM, l, NS, 'sb2', {}, { 'io.kubernetes.cri.sandbox-id': 'sb2' });
      expect(second.stdout).toBe(first.stdout);
      expect(other.stdout).not.toBe(first.stdout);
      const keepers = keeperPids(l.address);
      expect(keepers).toHaveLength(2);
      const [server] = serverPids(l); // the namespace's one serving process, for both pods
      expect(serverPids(l)).toHaveLength(1);
      // Node as start runs it (native/common/serving-argv.c): the young generation capped.
      expect(readFileSync(`/proc/${server}/cmdline`, 'utf8').split('\0')[1]).toBe('--max-semi-space-size=1');
      // The pod's lock beside its socket (docs/on-disk-layout.md).
      expect(existsSync(first.socket.replace(/\.sock$/, '.lock'))).toBe(true);
      for (const pid of keepers) {
        const { ppid, sid } = parentAndSession(pid);
        expect([ppid === process.pid, sid]).toEqual([false, pid]);
        // The serving process is the keeper's sibling: a subreaper's double fork would keep it.
        expect(parentAndSession(server).ppid).toBe(ppid);
      }
      const reply = await outcome(calls(first.socket).state('nosuch'));
      expect(reply).toEqual({ code: 5, message: 'task "nosuch" not found' });
    });

    it('SIGKILL of the serving process: a Wait in flight and the newest call, which it never read, are sent again; a Create is answered UNAVAILABLE', async () => {
      const l = fresh();
      const { socket, bundle } = start(BUILT_SHIM, l, NS, 't1');
      const c = calls(socket);
      await outcome(c.state('warm')); // the serving process has started and answers
      const [before] = serverPids(l);
      // Stopped, it reads nothing: the calls below are in flight at it when it dies.
      process.kill(before, 'SIGSTOP');
      const [keeper] = keeperPids(l.address);
      const [wait, create, kill] = await relayedInFlight(keeper, c, () => [
        outcome(c.wait('t1')),
        outcome(c.create('t1', bundle)),
        outcome(c.kill('t1')),
      ]);
      const killed = Date.now();
      process.kill(before, 'SIGKILL');
      // Answered by the new serving process, which never had the task.
      expect(await wait).toEqual({ code: 5, message: 'task "t1" not found' });
      const servedMs = Date.now() - killed;
      // The new serving process's start-up is most of it: a bare Node start-up, measured now, beside it.
      const bare = Date.now();
      spawnSync(process.execPath, ['-e', '0']);
      process.stderr.write(
        `  [figure] keeper: SIGKILL of the serving process to the next call served: ${servedMs} ms (target 200; \`node -e 0\` here now: ${Date.now() - bare} ms)\n`,
      );
      // The upstream ended with ECONNRESET, bytes unread: the newest call (Kill) never reached the
      // dead process whole and went to the new one; the Create before it may have been read.
      expect(await kill).toEqual({ code: 5, message: 'task "t1" not found' });
      expect(await create).toEqual({
        code: 14,
        message: `skiff's serving process restarted while Create was in flight; it may or may not have taken effect: check the task's state`,
      });
      expect(await outcome(c.state('t1'))).toEqual({ code: 5, message: 'task "t1" not found' });
      const after = serverPids(l);
      expect(after).toHaveLength(1);
      expect(after[0]).not.toBe(before);
      expect(servedMs).toBeLessThan(5000);
    });

    it('answers UNAVAILABLE, instead of sending a read-only call again forever, when the serving process closes every relay', async () => {
      const l = fresh();
      const { socket } = start(BUILT_SHIM, l, NS, 'x1');
      const c = calls(socket);
      await outcome(c.state('warm'));
      const [{ pid, socket: group }] = groupServers(l);
      process.kill(pid, 'SIGKILL');
      await waitFor('the serving process to die', () => !alive(pid));
      // In its place, a server that closes each connection at once, as one without the preamble would.
      rmSync(group);
      let accepted = 0;
      const closer = createServer((conn) => {
        accepted++;
        conn.destroy();
      });
      await new Promise<void>((resolve) => closer.listen(group, resolve));
      try {
        expect(await outcome(c.state('x1'))).toEqual({
          code: 14,
          message: "skiff's serving process closed the connection 3 times without answering (see containerd's log)",
        });
        await sleep(300);
        expect(accepted).toBeLessThanOrEqual(4);
      } finally {
        closer.close();
      }
    });

    it("answers a frame over 4 MiB RESOURCE_EXHAUSTED on its stream, as the runc shim's ttrpc does, discarding its body; the connection and its task go on", async () => {
      const l = fresh();
      const { socket } = start(BUILT_SHIM, l, NS, 'b1');
      const good = calls(socket);
      await outcome(good.state('x'));
      const wire = await WireConnection.open(socket);
      try {
        // An Exec whose process spec holds ~5 MiB of args: 5241248 bytes, over ttrpc's 4194304.
        const body = Buffer.alloc(5241248, 0x61);
        wire.write(frame(1, 1, body));
        wire.write(requestFrame(3, 'State', new task.v2.StateRequest({ id: 'y' }).serialize()));
        const first = await wire.next(20_000);
        expect(first).toMatchObject({
          streamId: 1,
          type: 2,
          code: 8,
          message: 'message length 5241248 exceed maximum message size of 4194304',
        });
        expect(await wire.next()).toMatchObject({ streamId: 3, type: 2, code: 5, message: 'task "y" not found' });
        // The keeper holds nothing of the discarded body.
        const [keeper] = keeperPids(l.address);
        expect(rssKiB(keeper)).toBeLessThan(16 * 1024);
      } finally {
        wire.socket.destroy();
      }
      expect(await outcome(good.state('z'))).toEqual({ code: 5, message: 'task "z" not found' });
      expect(keeperPids(l.address)).toHaveLength(1);
    });

    it('holds only its own descriptors, and leaks none across many connections', async () => {
      const l = fresh();
      const { socket, bundle } = start(BUILT_SHIM, l, NS, 'f1');
      const [keeper] = keeperPids(l.address);
      // stdio (stderr: the bundle's log), the pod listener, its epoll and its signalfd; nothing of
      // start's (the readiness pipe closes right after start has read its byte).
      const own = [
        '/dev/null',
        '/dev/null',
        join(bundle, 'log'),
        'socket',
        'anon_inode:[signalfd]',
        'anon_inode:[eventpoll]',
      ];
      const targets = () =>
        held(keeper)
          .map((target) => target.replace(/:\[\d+\]$/, ''))
          .sort();
      await waitFor(
        () => `the keeper to hold ${own.join(', ')} (it holds ${targets().join(', ')})`,
        () => JSON.stringify(targets()) === JSON.stringify([...own].sort()),
        2000,
      );
      const warm = calls(socket);
      await outcome(warm.state('x'));
      const baseline = openFds(keeper);
      for (let round = 0; round < 5; round++) {
        const batch = Array.from({ length: 20 }, () => new TaskCalls(socket));
        await Promise.all(batch.map((b) => outcome(b.state('x'))));
        batch.forEach((b) => b.close());
      }
      await waitFor(
        () => `the keeper's fds to come back to ${baseline} (${held(keeper).join(', ')})`,
        () => openFds(keeper) === baseline,
      );
    });

    it('does not start a serving process that left after its linger time again until a call comes', async () => {
      const l = fresh();
      const { socket } = start(BUILT_SHIM, l, NS, 'g1', { SKIFF_SHIM_LINGER_MS: '200' });
      const c = calls(socket);
      await outcome(c.state('x'));
      const [first] = serverPids(l);
      await waitFor('the serving process to leave after its linger time', () => !alive(first));
      await sleep(300);
      expect(serverPids(l)).toEqual([]); // the keeper holds containerd's connection, and waits
      expect(await outcome(c.state('x'))).toEqual({ code: 5, message: 'task "x" not found' });
      expect(serverPids(l)).toHaveLength(1);
    });

    it("waits for room in a busy serving process's backlog instead of starting a second one on its socket", async () => {
      const l = fresh();
      const { socket } = start(BUILT_SHIM, l, NS, 'q1');
      const [{ pid: server, socket: group }] = groupServers(l);
      // A serving process that accepts nothing for a while, its backlog full: as when every
      // keeper of a namespace reconnects at once after a crash, before Node accepts.
      process.kill(server, 'SIGSTOP');
      const fillers: Socket[] = [];
      try {
        for (;;) {
          const filler = connect(group);
          fillers.push(filler);
          const full = await new Promise<boolean>((resolve) => {
            filler.once('connect', () => resolve(false));
            filler.once('error', () => resolve(true));
          });
          if (full) break;
        }
        const call = outcome(calls(socket).state('x'));
        await sleep(300);
        expect(serverPids(l)).toEqual([server]);
        process.kill(server, 'SIGCONT');
        expect(await call).toEqual({ code: 5, message: 'task "x" not found' });
        expect(serverPids(l)).toEqual([server]);
      } finally {
        process.kill(server, 'SIGCONT');
        fillers.forEach((f) => f.destroy());
      }
    });

    it("the serving process's log moves to a task of another pod's keeper once its first task's log has no reader", async () => {
      const l = fresh();
      // Each bundle's log a FIFO that this test reads, as containerd does while the task is its.
      const readers: number[] = [];
      const fifo = (bundle: string) => {
        rmSync(join(bundle, 'log'));
        execFileSync('mkfifo', [join(bundle, 'log')]);
        readers.push(openSync(join(bundle, 'log'), constants.O_RDONLY | constants.O_NONBLOCK));
      };
      const drain = (fd: number) => {
        const buffer = Buffer.alloc(65536);
        try {
          return buffer.subarray(0, readSync(fd, buffer)).toString();
        } catch {
          return '';
        }
      };
      try {
        start(BUILT_SHIM, l, NS, 'p1', {}, { 'io.kubernetes.cri.sandbox-id': 'p1' }, fifo);
        const second = start(BUILT_SHIM, l, NS, 'p2', {}, { 'io.kubernetes.cri.sandbox-id': 'p2' }, fifo);
        const c = calls(second.socket);
        await outcome(c.state('one'));
        await waitFor('the first call logged in the first task', () => /State/.test(drain(readers[0])));
        closeSync(readers[0]); // containerd is done with the first task
        await outcome(c.state('two'));
        let moved = '';
        await waitFor("the next call logged in the second pod's task", () =>
          /State/.test((moved += drain(readers[1]))),
        );
        expect(moved).toMatch(/^skiff\[\d+\]: State [\d.]+ ms\n/m);
      } finally {
        readers.slice(1).forEach((fd) => closeSync(fd));
      }
    });

    it('a start after its pod keeper was SIGKILLed starts a new one on the same socket', async () => {
      const l = fresh();
      const first = start(BUILT_SHIM, l, NS, 'r1');
      const [dead] = keeperPids(l.address);
      process.kill(dead, 'SIGKILL');
      await waitFor('the keeper to die', () => !alive(dead));
      const again = start(BUILT_SHIM, l, NS, 'r1');
      expect([again.status, again.stdout]).toEqual([0, first.stdout]);
      expect(keeperPids(l.address)).toHaveLength(1);
      expect(await outcome(calls(again.socket).state('r1'))).toEqual({ code: 5, message: 'task "r1" not found' });
    });

    it("holds at most 16 MiB of containerd's frames while the serving process reads nothing, then stops reading; all go on when it reads again", async () => {
      const l = fresh();
      const { socket } = start(BUILT_SHIM, l, NS, 'w1');
      await outcome(calls(socket).state('warm'));
      const [keeper] = keeperPids(l.address);
      const [server] = serverPids(l);
      const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${keeper}/status`, 'utf8'))?.[1]) / 1024;
      const before = rssMb();
      process.kill(server, 'SIGSTOP');
      const raw = connect(socket);
      const count = 40;
      const payload = Buffer.alloc(1 << 20, 0x61);
      for (let i = 0; i < count; i++) raw.write(requestFrame(2 * i + 1, 'NoSuchMethod', payload));
      const replies: Buffer[] = [];
      raw.on('data', (d: Buffer) => replies.push(d));
      await sleep(500);
      const held = rssMb() - before;
      const unsent = raw.writableLength;
      process.kill(server, 'SIGCONT');
      // Each call is answered UNIMPLEMENTED: a frame of 10 + 25 bytes ("method NoSuchMethod").
      await waitFor('every call answered', () => Buffer.concat(replies).length >= count * 35, 15_000);
      raw.destroy();
      process.stderr.write(`  [figure] keeper: ${held.toFixed(1)} MB more RSS with 40 MiB sent to a stopped server\n`);
      expect(unsent).toBeGreaterThan(8 << 20);
      expect(held).toBeLessThan(26);
    });

    it('start fails in one line, and leaves no pod socket and no keeper, when there is no Node.js, it cannot be run, the pod socket path is too long, or SKIFF_SHIM_GROUP is wrong', () => {
      const l = fresh();
      // The same lines as without the keeper (test/e2e/containerd/shim-binary.test.ts).
      const none = start(BUILT_SHIM, l, NS, 'n0', { SKIFF_NODE: '/nonexistent/node' });
      expect([none.status, none.stdout, none.stderr]).toEqual([
        1,
        '',
        "containerd-shim-skiff-v2: SKIFF_NODE=/nonexistent/node in containerd's environment is not an executable file: " +
          'set it to the path of Node.js 20 or newer (`command -v node` where skiff was installed)\n',
      ]);
      // A Node.js found but not runnable: the keeper meets it starting the serving process.
      const node = join(l.root, 'node');
      writeFileSync(node, '#!/nonexistent/interpreter\n', { mode: 0o755 });
      const result = start(BUILT_SHIM, l, NS, 'n1', { SKIFF_NODE: node });
      expect([result.status, result.stdout]).toEqual([1, '']);
      expect(result.stderr).toBe(
        `containerd-shim-skiff-v2: cannot run ${node} (No such file or directory): set SKIFF_NODE=/path/to/node (Node.js 20 or newer) in containerd's environment\n`,
      );
      expect(readdirSync(join(l.state, 'skiff')).filter((f) => f.endsWith('.sock'))).toEqual([]);
      expect(keeperPids(l.address)).toEqual([]);
      // A state dir whose pod socket would not fit a unix socket's path: named, not cut.
      const state = join(l.root, 'x'.repeat(60));
      const bundle = join(state, 'io.containerd.runtime.v2.task', NS, 'n3');
      mkdirSync(bundle, { recursive: true });
      writeFileSync(join(bundle, 'config.json'), '{}');
      const long = spawnSync(BUILT_SHIM, ['-namespace', NS, '-address', l.address, '-id', 'n3', 'start'], {
        cwd: bundle,
        encoding: 'utf8',
        env: { ...process.env, SKIFF_KEEPER: '1' },
      });
      expect([long.status, long.stdout, long.stderr]).toEqual([
        1,
        '',
        `containerd-shim-skiff-v2: the pod socket path is too long for a unix socket; give containerd a shorter state dir: ${state}\n`,
      ]);
      const policy = start(BUILT_SHIM, l, NS, 'n2', { SKIFF_SHIM_GROUP: 'pods' });
      expect([policy.status, policy.stderr]).toEqual([
        1,
        "containerd-shim-skiff-v2: SKIFF_SHIM_GROUP in containerd's environment must be `namespace` or `pod`, not: pods\n",
      ]);
    });

    it('leaves, removing its socket, after its idle time when containerd never called, on SIGTERM then, and after a successful Shutdown on its last connection', async () => {
      const l = fresh();
      const idle = start(BUILT_SHIM, l, NS, 'i1', { SKIFF_KEEPER_IDLE_MS: '300' });
      const [idler] = keeperPids(l.address);
      // A connection that makes no call (`start` finding the keeper) is not a task.
      const probe = connect(idle.socket);
      await new Promise((resolve) => probe.on('connect', resolve));
      probe.destroy();
      await waitFor('the idle keeper to leave', () => !alive(idler));
      expect(existsSync(idle.socket)).toBe(false);

      const termed = start(BUILT_SHIM, l, NS, 'i2', {}, { 'io.kubernetes.cri.sandbox-id': 'sb-term' });
      const [terminated] = keeperPids(l.address);
      process.kill(terminated, 'SIGTERM');
      await waitFor('the keeper to leave on SIGTERM', () => !alive(terminated));
      expect(existsSync(termed.socket)).toBe(false);

      const shut = start(BUILT_SHIM, l, NS, 'i3', {}, { 'io.kubernetes.cri.sandbox-id': 'sb-shut' });
      const [shutDown] = keeperPids(l.address);
      expect(await outcome(calls(shut.socket).shutdown('i3'))).toEqual({ code: 0, message: '' });
      await waitFor('the keeper to leave after Shutdown', () => !alive(shutDown));
      expect(existsSync(shut.socket)).toBe(false);
    });

    it('stays while containerd may have a task there: past its idle time and through SIGTERM, with a connection open or after one that made calls closed without Shutdown', async () => {
      const l = fresh();
      const { socket } = start(BUILT_SHIM, l, NS, 'm1', { SKIFF_KEEPER_IDLE_MS: '300' });
      const [keeper] = keeperPids(l.address);
      const c = calls(socket);
      await outcome(c.state('m1'));
      process.kill(keeper, 'SIGTERM');
      await sleep(500);
      expect(alive(keeper)).toBe(true);
      // containerd going away (a restart): it comes back to its tasks, which must still be served here.
      const fds = openFds(keeper);
      c.close();
      // The connection and its relay; the control connection too, which the serving process now keeps open
      // and the keeper closes when it holds no key and has no containerd connection.
      await waitFor('the keeper to close the connection', () => openFds(keeper) <= fds - 2);
      process.kill(keeper, 'SIGTERM');
      await sleep(500);
      expect(alive(keeper)).toBe(true);
      // containerd back: the task's Delete, then its Shutdown on the last connection ends the keeper.
      expect(await outcome(calls(socket).shutdown('m1'))).toEqual({ code: 0, message: '' });
      await waitFor('the keeper to leave after Shutdown', () => !alive(keeper));
    });
  });
