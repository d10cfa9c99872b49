import { ChildProcess, fork } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readProcStat } from '../../../src/adapters/shim/os/proc-fs';
import { v1 } from '../../../src/adapters/shim/wire/proto/generated/v1/types/task';
import { RuncBundleFactory, runcTestsEnabled } from '../../support/runc-bundles';
import { waitFor } from '../../support/wait-for';
import { SKIFF_BIN, socketAccepts } from '../support/shim-process';
import { TaskTestClient } from '../support/task-client';

const Status = v1.types.Status;
const PATH_ENV = 'PATH=/usr/bin:/bin';

/**
 * `skiff shim serve --runtime runc` SIGKILLed while its containers run, and started again on
 * the same state directory and socket (docs/failure-domains.md, "Task records and the takeover"). Its
 * parent is a child subreaper (subreaper-parent.js), as a supervisor would be: the containers
 * are re-parented there, and reaped only when the test says so.
 */
if (runcTestsEnabled())
  describe('a runc serving process killed and started again takes its tasks over', () => {
    let bundles: RuncBundleFactory;
    let dir: string;
    let parent: ChildProcess;
    let server: { pid: number; client: TaskTestClient } | undefined;
    let n = 0;
    const socket = () => join(dir, 'run', 'shim.sock');
    const stateDir = () => join(dir, 'state');
    const tasksDir = () => join(stateDir(), 'tasks');
    const stderrFile = () => join(dir, 'serve.err');

    function ask<T>(message: object): Promise<T> {
      return new Promise((resolve) => {
        parent.once('message', (reply) => resolve(reply as T));
        parent.once('exit', () => resolve(undefined as T));
        parent.send(message);
      });
    }

    async function serve(): Promise<TaskTestClient> {
      await crash(); // one a failed test left
      const argv = [SKIFF_BIN, 'shim', 'serve', '--runtime', 'runc', '--address', socket(), '--state-dir', stateDir()];
      const { pid } = await ask<{ pid: number }>({ op: 'spawn', argv, stderr: stderrFile() });
      await waitFor(
        () => `the serving process to accept: ${readFileSync(stderrFile(), 'utf8')}`,
        async () => readProcStat(pid) !== undefined && existsSync(socket()) && (await socketAccepts(socket())),
      );
      expect(readProcStat(pid)?.state).not.toBe('Z');
      server = { pid, client: new TaskTestClient(socket(), 'grpc') };
      return server.client;
    }

    async function crash(): Promise<void> {
      if (server === undefined) return;
      server.client.close();
      process.kill(server.pid, 'SIGKILL');
      const pid = server.pid;
      await waitFor('the serving process to be gone', () => readProcStat(pid) === undefined);
      server = undefined;
    }

    /** A running container, its start on disk (so a crash from now on cannot lose it). */
    async function run(client: TaskTestClient, args: string[]): Promise<{ id: string; pid: number; out: string }> {
      const id = `rec-${n++}`;
      const out = join(dir, `${id}.out`);
      const bundle = bundles.make(args, { pidNamespace: true });
      const { pid } = await client.create({ id, bundle, stdout: out, stderr: out });
      await client.start(id);
      await waitFor(`the record of ${id}'s start`, () => recordOf(id).init.status === 'running');
      return { id, pid, out };
    }

    function recordOf(id: string) {
      return JSON.parse(readFileSync(join(tasksDir(), id, 'task.json'), 'utf8'));
    }

    beforeAll(async () => {
      bundles = new RuncBundleFactory();
      dir = mkdtempSync(join(tmpdir(), 'skiff-recovery-'));
      parent = fork(join(__dirname, '../support/subreaper-parent.js'), [], { stdio: 'inherit' });
    });

    afterAll(async () => {
      // What a failed test left: ended through a server, then the server with SIGTERM (it ends the rest).
      const client = server?.client ?? (await serve());
      for (const id of readdirSync(tasksDir())) {
        await client.kill(id, 9).catch(() => undefined);
        await client.delete(id).catch(() => undefined);
      }
      client.close();
      if (server !== undefined) process.kill(server.pid, 'SIGTERM');
      await ask({ op: 'exit' }).catch(() => undefined);
      bundles.cleanup();
      rmSync(dir, { recursive: true, force: true });
    });

    it('answers State RUNNING with the same pid, then Kill, Wait and Delete work and leave nothing on disk', async () => {
      let client = await serve();
      const { id, pid, out } = await run(client, ['sh', '-c', 'echo before; exec sleep 1000']);
      await waitFor('the first line', () => existsSync(out) && readFileSync(out, 'utf8') === 'before\n');
      const record = recordOf(id);
      expect(record).toMatchObject({ id, runtime: 'runc', init: { pid, status: 'running' } });
      expect(record.init.startTime).toBe(readProcStat(pid)?.startTicks);

      await crash();
      expect(readProcStat(pid)?.state).not.toBe('Z');
      const started = Date.now();
      client = await serve();
      const state = await client.state(id);
      process.stdout.write(`restart to the first State served: ${Date.now() - started} ms\n`);
      expect(state).toMatchObject({ id, pid, status: Status.RUNNING });

      await client.kill(id, 9);
      // The exit happens while the container is this test's zombie: its real status is still readable.
      expect((await client.wait(id)).exit_status).toBe(137);
      expect((await client.state(id)).status).toBe(Status.STOPPED);
      expect((await client.delete(id)).exit_status).toBe(137);
      expect(existsSync(join(tasksDir(), id))).toBe(false);
      await expect(client.state(id)).rejects.toMatchObject({ code: 5 });
    });

    it('reads STOPPED for a container that exited while no server ran, once its record is read', async () => {
      let client = await serve();
      const readable = await run(client, ['sleep', '1000']);
      const reaped = await run(client, ['sleep', '1000']);
      await crash();
      for (const { pid } of [readable, reaped]) process.kill(pid, 'SIGKILL');
      await waitFor('both exits', () => [readable, reaped].every(({ pid }) => readProcStat(pid)?.state === 'Z'));
      // Its new parent reaps one of them: that status is gone for good.
      expect(await ask({ op: 'reap', pids: [reaped.pid] })).toEqual({ reaped: [reaped.pid] });
      client = await serve();
      const stateOf = async (id: string) => {
        const { status, exit_status } = await client.state(id);
        return { status, exit_status };
      };
      expect(await stateOf(readable.id)).toEqual({ status: Status.STOPPED, exit_status: 137 });
      // 255: containerd's own status for an exit nobody could read.
      expect(await stateOf(reaped.id)).toEqual({ status: Status.STOPPED, exit_status: 255 });
      expect((await client.wait(reaped.id)).exit_status).toBe(255);
      for (const { id } of [readable, reaped]) await client.delete(id);
      expect(readdirSync(tasksDir())).toEqual([]);
    });

    it('never takes over a pid that now names another process (its start time differs)', async () => {
      let client = await serve();
      const { id, pid } = await run(client, ['sleep', '1000']);
      await crash();
      // As if the container had exited and its pid gone to a new process: the record's start time no longer matches.
      const record = recordOf(id);
      record.init.startTime += 1;
      writeFileSync(join(tasksDir(), id, 'task.json'), JSON.stringify(record));
      client = await serve();
      const { status, exit_status } = await client.state(id);
      expect({ status, exit_status }).toEqual({ status: Status.STOPPED, exit_status: 255 });
      await expect(client.kill(id, 9)).rejects.toMatchObject({ code: 5 });
      expect(readProcStat(pid)?.state).toBe('S');
      await client.delete(id);
      expect(readdirSync(tasksDir())).toEqual([]);
    });

    it('takes an exec over too: State, Pids, Kill, Wait and Delete', async () => {
      let client = await serve();
      const { id } = await run(client, ['sleep', '1000']);
      const out = join(dir, `${id}-exec.out`);
      await client.exec(id, 'sh', { args: ['sleep', '1000'], env: [PATH_ENV], cwd: '/' }, { stdout: out });
      const { pid: execPid } = await client.start(id, 'sh');
      await waitFor('the record of the exec', () => recordOf(id).execs[0]?.status === 'running');
      await crash();
      client = await serve();
      expect(await client.state(id, 'sh')).toMatchObject({ pid: execPid, status: Status.RUNNING, exec_id: 'sh' });
      const pids = (await client.pids(id)).processes.map((p) => p.pid);
      expect(pids).toContain(execPid);
      await client.kill(id, 9, { exec_id: 'sh' });
      expect((await client.wait(id, 'sh')).exit_status).toBe(137);
      // Its status read, its new parent reaps it, as any would: until then the zombie keeps the
      // container's cgroup busy and `runc delete` waits for it (docs/failure-domains.md).
      await ask({ op: 'reap', pids: [execPid] });
      await client.delete(id, 'sh');
      await client.kill(id, 9);
      await client.wait(id);
      await client.delete(id);
      expect(readdirSync(tasksDir())).toEqual([]);
    });

    it('reports a corrupt or partial record in one line, skips it and serves the rest', async () => {
      let client = await serve();
      const { id, pid } = await run(client, ['sleep', '1000']);
      await crash();
      for (const [name, text] of [
        ['partial', '{"version":1,"id":"partial","bundle":"/x","init":{"pi'],
        ['garbage', '\u0000\u0001 not json'],
      ]) {
        mkdirSync(join(tasksDir(), name), { recursive: true });
        writeFileSync(join(tasksDir(), name, 'task.json'), text);
      }
      writeFileSync(stderrFile(), '');
      client = await serve();
      expect(await client.state(id)).toMatchObject({ pid, status: Status.RUNNING });
      const lines = readFileSync(stderrFile(), 'utf8').trim().split('\n');
      expect(lines).toEqual([
        `skiff shim: skipped ${join(tasksDir(), 'garbage', 'task.json')}: not JSON (a partial or corrupt write)`,
        `skiff shim: skipped ${join(tasksDir(), 'partial', 'task.json')}: not JSON (a partial or corrupt write)`,
      ]);
      await expect(client.state('partial')).rejects.toMatchObject({ code: 5 });
      for (const name of ['partial', 'garbage']) rmSync(join(tasksDir(), name), { recursive: true });
      await client.kill(id, 9);
      await client.wait(id);
      await client.delete(id);
    });
  });
