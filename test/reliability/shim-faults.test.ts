import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { constants } from 'node:os';
import { mkfifo, readFifoInAnotherProcess, readSomeInAnotherProcess } from '../e2e/support/fifo';
import { nativeFixture, RuntimeFixture } from '../e2e/support/runtimes';
import { RunningShim, startShim } from '../e2e/support/shim-process';
import { waitFor } from '../support/wait-for';
import { codeOf } from '../e2e/support/task-client';
import { figure } from './scale';
import { openFds, zombieChildren } from './shim-probe';

const CLIENT_SCRIPT = join(__dirname, 'support', 'one-call.js');

/** Starts a separate client process that makes one call and then is killed mid-call. */
function clientProcess(socket: string, method: string, request: Record<string, unknown>) {
  return spawn(process.execPath, [CLIENT_SCRIPT, socket, method, JSON.stringify(request)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

describe('shim faults: clients that die, signals, odd writers and readers', () => {
  let shim: RunningShim;
  let fx: RuntimeFixture;
  let n = 0;
  const nextId = () => `f${n++}`;

  beforeAll(async () => {
    fx = nativeFixture();
    shim = await startShim();
  });
  afterAll(async () => {
    await shim.stop();
    fx.cleanup();
  });

  it('keeps the task and its exit when a client is killed in the middle of Wait', async () => {
    const id = nextId();
    await shim.client.create({ id, bundle: fx.bundle(['sleep', '100']) });
    await shim.client.start(id);
    const waiter = clientProcess(shim.socket, 'Wait', { id });
    await new Promise((r) => setTimeout(r, 300)); // the Wait is in flight
    waiter.kill('SIGKILL');
    await new Promise((r) => waiter.once('exit', r));
    await shim.client.kill(id, 15);
    expect((await shim.client.wait(id)).exit_status).toBe(143);
    await shim.client.delete(id);
  });

  it('stays consistent when a client is killed in the middle of Create', async () => {
    const ids = Array.from({ length: 5 }, nextId);
    const creators = ids.map((id) => clientProcess(shim.socket, 'Create', { id, bundle: fx.bundle(['sleep', '100']) }));
    // Kill each creator as soon as it has sent its request (or at once for some).
    await Promise.all(
      creators.map(
        (c, i) =>
          new Promise<void>((resolve) => {
            const kill = () => {
              c.kill('SIGKILL');
              resolve();
            };
            if (i % 2 === 0) kill();
            else c.stdout?.once('data', kill);
          }),
      ),
    );
    await new Promise((r) => setTimeout(r, 300));
    for (const id of ids) {
      // Either the Create never arrived (NOT_FOUND) or the task exists, CREATED, and can be deleted.
      const state = await shim.client.state(id).catch(() => undefined);
      if (state !== undefined) {
        expect(state.status).toBe(1);
        await shim.client.delete(id);
      }
    }
    const id = nextId();
    await shim.client.create({ id, bundle: fx.bundle(['true']) });
    await shim.client.delete(id);
  });

  const SIGNALS = [
    'SIGHUP',
    'SIGINT',
    'SIGQUIT',
    'SIGILL',
    'SIGTRAP',
    'SIGABRT',
    'SIGBUS',
    'SIGFPE',
    'SIGKILL',
    'SIGUSR1',
    'SIGSEGV',
    'SIGUSR2',
    'SIGPIPE',
    'SIGALRM',
    'SIGTERM',
  ] as const;

  it.each(SIGNALS)('reports a process killed by %s as 128+signal, whoever sent it', async (name) => {
    const number = constants.signals[name];
    // From the shim (Kill) ...
    const a = nextId();
    await shim.client.create({ id: a, bundle: fx.bundle(['sleep', '100']) });
    await shim.client.start(a);
    await shim.client.kill(a, number);
    // ... and from the process itself.
    const b = nextId();
    await shim.client.create({
      id: b,
      bundle: fx.bundle(['sh', '-c', `ulimit -c 0; kill -${name.slice(3)} $$; sleep 5`]),
    });
    await shim.client.start(b);
    for (const id of [a, b]) {
      expect((await shim.client.wait(id)).exit_status).toBe(128 + number);
      await shim.client.delete(id);
    }
  });

  it('handles a process that closes its stdout early: it runs on, the reader sees end-of-file at exit', async () => {
    const id = nextId();
    const out = mkfifo(join(shim.dir, `${id}.out`));
    const reader = readFifoInAnotherProcess(out);
    await shim.client.create({
      id,
      bundle: fx.bundle(['sh', '-c', 'echo before; exec 1>&-; sleep 0.3; exit 4']),
      stdout: out,
    });
    await shim.client.start(id);
    expect((await shim.client.wait(id)).exit_status).toBe(4);
    expect(await reader.done).toBe('before\n');
    await shim.client.delete(id);
  });

  it('keeps serving other tasks while one floods a FIFO nobody reads, then loses none of it', async () => {
    const flood = nextId();
    const out = mkfifo(join(shim.dir, `${flood}.out`));
    const bytes = 4 * 1024 * 1024;
    await shim.client.create({ id: flood, bundle: fx.bundle(['sh', '-c', `head -c ${bytes} /dev/zero`]), stdout: out });
    await shim.client.start(flood);
    const started = Date.now();
    for (let i = 0; i < 20; i++) {
      const id = nextId();
      await shim.client.create({ id, bundle: fx.bundle(['true']) });
      await shim.client.start(id);
      await shim.client.wait(id);
      await shim.client.delete(id);
    }
    figure(`20 lifecycles beside a blocked 4 MiB writer: ${Date.now() - started} ms`);
    expect((await shim.client.state(flood)).status).toBe(2); // blocked, alive
    const got = await readFifoInAnotherProcess(out).done;
    expect(got.length).toBe(bytes);
    expect((await shim.client.wait(flood)).exit_status).toBe(0);
    await shim.client.delete(flood);
  });

  it('shares output between two readers attached at once: together they get every line exactly once', async () => {
    const id = nextId();
    const out = mkfifo(join(shim.dir, `${id}.out`));
    const first = readFifoInAnotherProcess(out);
    const second = readFifoInAnotherProcess(out);
    await shim.client.create({
      id,
      bundle: fx.bundle(['sh', '-c', 'i=1; while [ $i -le 2000 ]; do echo line$i; i=$((i+1)); done']),
      stdout: out,
    });
    await shim.client.start(id);
    const [a, b] = await Promise.all([first.done, second.done]);
    const lines = (a + b).split('\n').filter(Boolean).sort();
    // Pipe reads split at write boundaries of at most PIPE_BUF here, so lines stay whole.
    expect(lines).toHaveLength(2000);
    expect(new Set(lines).size).toBe(2000);
    await shim.client.wait(id);
    await shim.client.delete(id);
  });

  it('gives a reader that attaches late the buffered output, then another reader the rest', async () => {
    const id = nextId();
    const out = mkfifo(join(shim.dir, `${id}.out`));
    await shim.client.create({
      id,
      bundle: fx.bundle(['sh', '-c', 'echo one; echo two; sleep 0.3; echo three']),
      stdout: out,
    });
    await shim.client.start(id);
    await new Promise((r) => setTimeout(r, 100));
    const early = await readSomeInAnotherProcess(out, 8);
    const rest = await readFifoInAnotherProcess(out).done;
    expect(early + rest).toBe('one\ntwo\nthree\n');
    await shim.client.wait(id);
    await shim.client.delete(id);
  });

  it('leaves no zombie and no extra descriptor behind after all of this', async () => {
    await waitFor('no zombies', () => zombieChildren(shim.child.pid as number).length === 0);
    const fds = openFds(shim.child.pid as number);
    figure(`shim fds after the fault suite: ${fds}`);
    expect(fds).toBeLessThan(40);
    expect(await codeOf(shim.client.state('nothing-left'))).toBe(5);
  });
});
