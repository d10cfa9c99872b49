import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect, Socket } from 'node:net';
import { join } from 'node:path';
import {
  BUSYBOX_IMAGE,
  containerdTestsEnabled,
  PrivateContainerd,
  startContainerd,
  uniqueNamespace,
} from '../../support/containerd';
import { ok, processRuns, taskList, waitForStatus } from './support';
import { groupServers, SKIFF } from './skiff-support';
import { waitFor } from '../../support/wait-for';
import { task } from '../../../src/adapters/shim/wire/proto/generated/task/v2/shim';
import { v1 } from '../../../src/adapters/shim/wire/proto/generated/v1/types/task';
import { ttrpc } from '../../../src/adapters/shim/wire/proto/generated/ttrpc/request';
import { encodeFrame, Frame, FrameType } from '../../../src/adapters/shim/wire/ttrpc/frame';
import { FrameReader } from '../../../src/adapters/shim/wire/ttrpc/frame-reader';
import { TTRPC_TASK_SERVICE } from '../../../src/adapters/shim/wire/ttrpc/service-names';
import { google as anyPb } from '../../../src/adapters/shim/wire/proto/generated/google/protobuf/any';

/**
 * The pod keeper answers a State the serving process has not answered within 100 ms from the
 * answer the serving process last gave (docs/keeper-protocol.md, "State from the keeper"): a
 * starved or restarting serving process makes no State wait. Never when that answer may be
 * stale: a process the keeper saw exit, a request that may change a process in flight. And
 * containerd gets one answer per call: the serving process's later one is dropped.
 */

/** A ttrpc client on raw frames that records every response, so that a second one for a stream shows. */
class RawClient {
  private readonly socket: Socket;
  private next = 1;
  private readonly waiting = new Map<number, (frame: Frame) => void>();
  readonly answers = new Map<number, number>();

  constructor(path: string) {
    const reader = new FrameReader({
      frame: (frame) => {
        this.answers.set(frame.streamId, (this.answers.get(frame.streamId) ?? 0) + 1);
        this.waiting.get(frame.streamId)?.(frame);
        this.waiting.delete(frame.streamId);
      },
      oversize: () => undefined,
    });
    this.socket = connect(path);
    this.socket.on('data', (chunk: Buffer) => reader.push(chunk));
  }

  /** The response's payload bytes (a failed one throws its status). */
  call(method: string, payload: Uint8Array): Promise<Buffer> {
    const stream = this.next;
    this.next += 2;
    const request = new ttrpc.Request({ service: TTRPC_TASK_SERVICE, method, payload });
    return new Promise<Buffer>((resolve, reject) => {
      this.waiting.set(stream, (frame) => {
        const response = ttrpc.Response.deserialize(frame.payload);
        if (response.status !== undefined && response.status.code !== 0)
          reject(new Error(`${method}: code ${response.status.code} ${response.status.message}`));
        else resolve(Buffer.from(response.payload));
      });
      this.socket.write(encodeFrame(stream, FrameType.Request, request.serialize()));
    });
  }

  state(id: string, exec_id = ''): Promise<Buffer> {
    return this.call('State', new task.v2.StateRequest({ id, exec_id }).serialize());
  }

  /** Streams answered more than once. */
  twice(): number[] {
    return [...this.answers].filter(([, n]) => n > 1).map(([stream]) => stream);
  }

  close(): void {
    this.socket.destroy();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await sleep(ms);
  return settled;
}

const Status = v1.types.Status;
const statusOf = (bytes: Buffer) => task.v2.StateResponse.deserialize(bytes).status;

if (containerdTestsEnabled())
  describe('containerd 1.6 with skiff: State answered by the pod keeper when the serving process does not answer', () => {
    let env: PrivateContainerd;
    let ns: string;

    beforeAll(async () => {
      env = await startContainerd();
      ns = uniqueNamespace('kstate');
      await env.importImages(ns);
    });
    afterAll(async () => {
      // A test that failed with its serving process stopped leaves none stopped behind it.
      if (env !== undefined) for (const server of groupServers(env)) process.kill(server.pid, 'SIGCONT');
      await env?.stop();
    });

    const addressOf = (id: string) =>
      readFileSync(join(env.paths.state, 'io.containerd.runtime.v2.task', ns, id, 'address'), 'utf8')
        .trim()
        .replace('unix://', '');

    it('answers a stopped serving process’s State as it last did, and never after an exit or with a change in flight', async () => {
      const id = 'starved';
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, id, 'sleep', '1000']);
      const client = new RawClient(addressOf(id));
      const [server] = groupServers(env);
      try {
        const served = await client.state(id);
        expect(statusOf(served)).toBe(Status.RUNNING);
        const listed = (await taskList(env, ns)).get(id);

        process.kill(server.pid, 'SIGSTOP');
        const asked = Date.now();
        expect(await client.state(id)).toEqual(served);
        const tookMs = Date.now() - asked;
        console.log(
          `State of a running task while its serving process is stopped: answered by its keeper in ${tookMs} ms`,
        );
        expect(tookMs).toBeLessThan(2000);
        // containerd's own path, as `ctr task ls` meets it: the same row, not UNKNOWN after its 2 s deadline.
        expect((await taskList(env, ns)).get(id)).toEqual(listed);

        // Requests that change no State field (CloseIO, ResizePty) in flight: the cache still answers.
        const neutral = [
          client.call('CloseIO', new task.v2.CloseIORequest({ id, stdin: true }).serialize()),
          client.call('ResizePty', new task.v2.ResizePtyRequest({ id, width: 80, height: 24 }).serialize()),
        ].map((call) => call.catch((error: Error) => error));
        const besideNeutral = client.state(id);
        expect(await settlesWithin(besideNeutral, 1500)).toBe(true);
        expect(await besideNeutral).toEqual(served);

        // A request that may change the task (a Kill, here a harmless SIGCONT) in flight: no State from the cache meanwhile.
        const killing = client.call('Kill', new task.v2.KillRequest({ id, signal: 18 }).serialize());
        const during = client.state(id);
        expect(await settlesWithin(during, 700)).toBe(false);
        process.kill(server.pid, 'SIGCONT');
        await killing;
        await Promise.all(neutral);
        expect(statusOf(await during)).toBe(Status.RUNNING);
        expect(await client.state(id)).toEqual(served);

        // The task's process exits while the serving process is stopped: its keeper saw it, so no RUNNING from the cache.
        process.kill(server.pid, 'SIGSTOP');
        const pid = task.v2.StateResponse.deserialize(served).pid;
        process.kill(pid, 'SIGKILL');
        await waitFor('the task to end', () => !processRuns(pid), 5000);
        const afterExit = client.state(id);
        expect(await settlesWithin(afterExit, 700)).toBe(false);
        process.kill(server.pid, 'SIGCONT');
        expect(statusOf(await afterExit)).toBe(Status.STOPPED);
        expect(client.twice()).toEqual([]);
      } finally {
        process.kill(server.pid, 'SIGCONT');
        client.close();
      }
      await waitForStatus(env, ns, id, 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', id]);
      await ok(env, ns, ['containers', 'rm', id]);
    });

    it('answers the first State after an Exec and after its Start, before the serving process gave one, as the serving process does', async () => {
      const id = 'learned';
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, id, 'sleep', '1000']);
      const client = new RawClient(addressOf(id));
      const [server] = groupServers(env);
      const direct = new RawClient(server.socket);
      const out = mkdtempSync(join(tmpdir(), 'skiff-learned-'));
      try {
        // This client's own exec: nobody else asks its State, so the keeper has only the Exec and the Start to go by.
        const spec = new anyPb.protobuf.Any({
          type_url: 'types.containerd.io/opencontainers/runtime-spec/1/Process',
          value: new TextEncoder().encode(JSON.stringify({ args: ['sleep', '1000'], cwd: '/', env: ['PATH=/bin'] })),
        });
        const stdio = { stdout: join(out, 'stdout'), stderr: join(out, 'stderr') };
        await client.call('Exec', new task.v2.ExecProcessRequest({ id, exec_id: 'x1', spec, ...stdio }).serialize());
        // Created, not started (as `ctr task exec` asks it, three times, before the Start): from the keeper too.
        process.kill(server.pid, 'SIGSTOP');
        const created = await client.state(id, 'x1');
        process.kill(server.pid, 'SIGCONT');
        expect(created).toEqual(await direct.state(id, 'x1'));
        expect(task.v2.StateResponse.deserialize(created)).toMatchObject({ pid: 0, status: Status.CREATED });
        const started = task.v2.StartResponse.deserialize(
          await client.call('Start', new task.v2.StartRequest({ id, exec_id: 'x1' }).serialize()),
        );
        process.kill(server.pid, 'SIGSTOP');
        const asked = Date.now();
        const fromKeeper = await client.state(id, 'x1');
        const tookMs = Date.now() - asked;
        console.log(
          `first State of a started exec while its serving process is stopped: answered by its keeper in ${tookMs} ms`,
        );
        expect(tookMs).toBeLessThan(2000);
        process.kill(server.pid, 'SIGCONT');
        // The serving process's own answer, on its own socket: the same bytes.
        const fromServer = await direct.state(id, 'x1');
        expect(task.v2.StateResponse.deserialize(fromKeeper).toObject()).toEqual(
          task.v2.StateResponse.deserialize(fromServer).toObject(),
        );
        expect(task.v2.StateResponse.deserialize(fromKeeper)).toMatchObject({
          pid: started.pid,
          status: Status.RUNNING,
          exec_id: 'x1',
          stdout: stdio.stdout,
        });
        expect(fromKeeper).toEqual(fromServer);
        expect(client.twice()).toEqual([]);
      } finally {
        process.kill(server.pid, 'SIGCONT');
        client.close();
        direct.close();
        rmSync(out, { recursive: true, force: true });
      }
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', id]);
      await waitForStatus(env, ns, id, 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', id]);
      await ok(env, ns, ['containers', 'rm', id]);
    });

    it('keeps a task’s State through the whole life of an exec in it, as `ctr task exec` then finds it after a crash', async () => {
      const id = 'exec-life';
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, id, 'sleep', '1000']);
      const client = new RawClient(addressOf(id));
      const [server] = groupServers(env);
      try {
        const served = await client.state(id);
        // An exec's Exec, Start, exit and Delete touch that exec only: the task's kept answer stands.
        await ok(env, ns, ['tasks', 'exec', '--exec-id', 'brief', id, 'true']);
        process.kill(server.pid, 'SIGSTOP');
        const answer = client.state(id);
        expect(await settlesWithin(answer, 1500)).toBe(true);
        expect(await answer).toEqual(served);
        expect(client.twice()).toEqual([]);
      } finally {
        process.kill(server.pid, 'SIGCONT');
        client.close();
      }
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', id]);
      await waitForStatus(env, ns, id, 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', id]);
      await ok(env, ns, ['containers', 'rm', id]);
    });

    it('answers a State once when the serving process dies with it in flight, and the next call is the new serving process’s', async () => {
      const id = 'crashed';
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, id, 'sleep', '1000']);
      const client = new RawClient(addressOf(id));
      try {
        const served = await client.state(id);
        const [server] = groupServers(env);
        process.kill(server.pid, 'SIGSTOP');
        // Answered by the keeper while the request sits unread at the stopped process...
        expect(await client.state(id)).toEqual(served);
        // ...which then dies with it: the keeper does not send it again to the next one.
        process.kill(server.pid, 'SIGKILL');
        await waitFor('the killed serving process to be gone', () => !processRuns(server.pid), 5000);
        expect(await client.state(id)).toEqual(served);
        await waitFor('a new serving process', () => groupServers(env).some((s) => s.pid !== server.pid), 10_000);
        await sleep(300);
        expect(await client.state(id)).toEqual(served);
        expect(client.twice()).toEqual([]);
      } finally {
        client.close();
      }
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', id]);
      await waitForStatus(env, ns, id, 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', id]);
      await ok(env, ns, ['containers', 'rm', id]);
    });
  });
