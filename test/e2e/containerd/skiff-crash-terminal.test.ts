import type { IPty } from 'node-pty';
import { spawnSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { task } from '../../../src/adapters/shim/wire/proto/generated/task/v2/shim';
import { TtrpcClient } from '../../../src/adapters/shim/wire/ttrpc/ttrpc-client';
import { TTRPC_TASK_SERVICE } from '../../../src/adapters/shim/wire/ttrpc/service-names';
import {
  BUSYBOX_IMAGE,
  containerdTestsEnabled,
  PrivateContainerd,
  startContainerd,
  uniqueNamespace,
} from '../../support/containerd';
import { ok, processRuns, taskList, waitForStatus } from './support';
import { groupServers, SKIFF } from './skiff-support';
import { argvOf, parentOf } from '../../support/procs';
import { waitFor } from '../../support/wait-for';

/**
 * A terminal container keeps its terminal when skiff's serving process is killed
 * (docs/keeper-protocol.md, `L` with a console socket; docs/failure-domains.md): behind pod
 * keepers (the default) the keeper holds the pty master and copies it to and from the
 * FIFOs, so `ctr run -t` and `ctr task exec -t` go on through the same ctr sessions, resize
 * through the keeper (`R`), and end with the shell's own exit code.
 */

/** ctr on a pseudo-terminal of its own, typed into and read from as a user would. */
class CtrSession {
  private readonly term: IPty;
  private output = '';
  readonly exited: Promise<number>;

  constructor(env: PrivateContainerd, ns: string, args: readonly string[]) {
    const pty = require('node-pty') as typeof import('node-pty');
    const [cmd, ...rest] = args;
    const sub = cmd === 'run' ? [] : [rest.shift() as string];
    // `ctr task attach` opens the FIFOs containerd recorded: it takes no --fifo-dir.
    const fifo = sub[0] === 'attach' ? [cmd, ...sub] : [cmd, ...sub, '--fifo-dir', env.paths.fifoDir];
    this.term = pty.spawn('ctr', ['--address', env.address, '--namespace', ns, ...fifo, ...rest], {
      cols: 80,
      rows: 24,
      env: process.env as Record<string, string>,
    });
    this.term.onData((d) => (this.output += d));
    this.exited = new Promise((resolve) => this.term.onExit(({ exitCode }) => resolve(exitCode)));
  }

  send(line: string): void {
    this.term.write(`${line}\r`);
  }

  /** Types `line` and waits until the terminal shows `expected` after what it showed before. */
  async type(line: string, expected: RegExp): Promise<RegExpExecArray> {
    const from = this.output.length;
    this.send(line);
    return waitFor(
      () =>
        `${JSON.stringify(line)} to print ${expected} (the terminal shows ${JSON.stringify(this.output.slice(from))})`,
      () => expected.exec(this.output.slice(from)) ?? undefined,
      10_000,
    );
  }

  /** Resizes ctr's own terminal: ctr hears SIGWINCH and resizes the container's (ResizePty). */
  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows);
  }

  kill(): void {
    this.term.kill('SIGKILL');
  }
}

/** The FIFO ctr made under `dir` (in a directory of its own) with this name. */
function fifoOf(dir: string, name: string): string {
  for (const sub of readdirSync(dir)) if (existsSync(join(dir, sub, name))) return join(dir, sub, name);
  throw new Error(`no ${name} under ${dir}`);
}

/** Whether a FIFO has a reader: a non-blocking open for writing fails (ENXIO) without one. */
function hasReader(path: string): boolean {
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
    return true;
  } catch {
    return false;
  }
}

if (containerdTestsEnabled())
  describe('containerd 1.6 with skiff behind pod keepers: a SIGKILL of the serving process under a terminal', () => {
    let env: PrivateContainerd;
    let ns: string;
    const sessions: CtrSession[] = [];

    beforeAll(async () => {
      env = await startContainerd({ logLevel: 'debug' });
      ns = uniqueNamespace('crash-tty');
      await env.importImages(ns);
    });
    afterAll(async () => {
      for (const session of sessions) session.kill();
      await env?.stop();
    });

    it('keeps the terminal of `ctr run -t` and of `ctr task exec -t`: typing, output, resize and the exit code go on', async () => {
      const id = 'tty';
      const run = new CtrSession(env, ns, ['run', '-t', ...SKIFF, BUSYBOX_IMAGE, id, 'sh']);
      sessions.push(run);
      await run.type('echo before $((6*7))', /before 42/);
      // ctr sizes the container's terminal to its own at the start (ResizePty, the keeper's `R`).
      await run.type('stty size', /24 80/);
      const init = (await waitForStatus(env, ns, id, 'RUNNING')).pid;
      expect(argvOf(parentOf(init)).at(-1)).toBe('keep');

      const exec = new CtrSession(env, ns, ['task', 'exec', '-t', '--exec-id', 'sh2', id, 'sh']);
      sessions.push(exec);
      await exec.type('echo exec $((5*5))', /exec 25/);
      await exec.type('stty size', /24 80/);

      const servers = groupServers(env);
      expect(servers).toHaveLength(1);
      process.kill(servers[0].pid, 'SIGKILL');
      await waitFor('the serving process to be gone', () => !groupServers(env).some((s) => s.pid === servers[0].pid));

      // The same ctr sessions go on: the keeper copies the terminals, the serving process is not in the way.
      await run.type('echo after $((6*8))', /after 48/);
      await exec.type('echo exec-after $((5*6))', /exec-after 30/);
      // ResizePty reaches the keeper's `R` through a new serving process that took the tasks over.
      run.resize(100, 37);
      await waitFor('the resize to reach the container', async () =>
        /37 100/.test((await run.type('stty size', /\d+ \d+/))[0]) ? true : undefined,
      );
      exec.resize(90, 30);
      await waitFor('the resize to reach the exec', async () =>
        /30 90/.test((await exec.type('stty size', /\d+ \d+/))[0]) ? true : undefined,
      );
      expect(groupServers(env)).toHaveLength(1);

      // Their exits come from the keeper's `E`, with the shell's own codes.
      exec.send('exit 3');
      expect(await exec.exited).toBe(3);
      run.send('exit 5');
      expect(await run.exited).toBe(5);
      await waitFor('the task to be gone', async () => !(await taskList(env, ns)).has(id));
      await ok(env, ns, ['containers', 'rm', id]);
    }, 30_000);

    it("closes a terminal's stdin through the keeper: CloseIO after the restart is its `C`", async () => {
      const id = 'closing';
      const run = new CtrSession(env, ns, ['run', '-t', ...SKIFF, BUSYBOX_IMAGE, id, 'sh']);
      sessions.push(run);
      await run.type('echo ready $((3*3))', /ready 9/);
      const servers = groupServers(env);
      process.kill(servers[0].pid, 'SIGKILL');
      // ctr's writer on the stdin FIFO goes; the keeper's `I` keeps the shell's input open.
      run.kill();
      await run.exited;
      // After the crash, not during it: a call the dying process's listener still took in the
      // instant before its descriptors closed would be in flight at the crash (UNAVAILABLE).
      await waitFor('the killed serving process to be gone', () => !processRuns(servers[0].pid));
      const stdin = fifoOf(env.paths.fifoDir, `${id}-stdin`);
      expect(hasReader(stdin)).toBe(true);
      const address = readFileSync(join(env.paths.state, 'io.containerd.runtime.v2.task', ns, id, 'address'), 'utf8');
      // As containerd calls it (ttrpc, on the pod keeper's socket), after the serving process that made the task died.
      const client = new TtrpcClient(address.trim().replace('unix://', ''));
      try {
        const request = Buffer.from(new task.v2.CloseIORequest({ id, stdin: true }).serialize());
        await client.call(TTRPC_TASK_SERVICE, 'CloseIO', request);
      } finally {
        client.close();
      }
      // `C` closed `I`: the keeper's `N` meets end-of-file and stops reading.
      await waitFor('the keeper to stop reading the stdin FIFO', () => !hasReader(stdin));
      expect((await taskList(env, ns)).get(id)?.status).toBe('RUNNING');
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', id]);
      await waitForStatus(env, ns, id, 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', id]);
      await ok(env, ns, ['containers', 'rm', id]);
      rmSync(dirname(stdin), { recursive: true, force: true });
    });

    it('lets `ctr task attach` take the terminal over after the restart, and tells it the exit', async () => {
      const id = 'attaching';
      const run = new CtrSession(env, ns, ['run', '-t', ...SKIFF, BUSYBOX_IMAGE, id, 'sh']);
      sessions.push(run);
      await run.type('echo first $((2*4))', /first 8/);
      process.kill(groupServers(env)[0].pid, 'SIGKILL');
      run.kill();
      await run.exited;
      const fifos = dirname(fifoOf(env.paths.fifoDir, `${id}-stdin`));
      const attach = new CtrSession(env, ns, ['task', 'attach', id]);
      sessions.push(attach);
      await attach.type('echo attached $((7*7))', /attached 49/);
      attach.send('exit 6');
      expect(await attach.exited).toBe(6);
      // ctr deletes the task it saw exit, as `ctr run` does.
      await waitFor('the task to be gone', async () => !(await taskList(env, ns)).has(id));
      await ok(env, ns, ['containers', 'rm', id]);
      rmSync(fifos, { recursive: true, force: true });
    });

    it('gives a terminal nobody resizes 80x24 (runc leaves it 0x0), through the keeper', async () => {
      const id = 'unsized';
      // Detached, ctr never resizes: the size is the one the shim set after the launch.
      const run = new CtrSession(env, ns, ['run', '-d', '-t', ...SKIFF, BUSYBOX_IMAGE, id, 'sleep', '1000']);
      sessions.push(run);
      expect(await run.exited).toBe(0);
      const init = (await waitForStatus(env, ns, id, 'RUNNING')).pid;
      expect(argvOf(parentOf(init)).at(-1)).toBe('keep');
      const size = spawnSync('stty', ['-F', `/proc/${init}/fd/0`, 'size'], { encoding: 'utf8' });
      expect(size.stdout.trim()).toBe('24 80');
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', id]);
      await waitForStatus(env, ns, id, 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', id]);
      await ok(env, ns, ['containers', 'rm', id]);
    });
  });
