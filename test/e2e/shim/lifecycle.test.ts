import { status as Code } from '@grpc/grpc-js';
import { join } from 'node:path';
import { skiff } from '../../../src/adapters/shim/wire/proto/generated/skiff/v1/skiff';
import { v1 } from '../../../src/adapters/shim/wire/proto/generated/v1/types/task';
import { readFifoInAnotherProcess, mkfifo } from '../support/fifo';
import { RuntimeFixture, shimVariants } from '../support/runtimes';
import { RunningShim, startShim } from '../support/shim-process';
import { waitFor } from '../../support/wait-for';
import { codeOf } from '../support/task-client';

const Status = v1.types.Status;

describe.each(shimVariants())('shim lifecycle end to end (%s over %s)', (runtimeName, transport, makeFixture) => {
  let shim: RunningShim;
  let fx: RuntimeFixture;
  let n = 0;
  const nextId = () => `task-${n++}`;

  beforeAll(async () => {
    fx = makeFixture();
    shim = await startShim(runtimeName, [], undefined, undefined, transport);
  });
  afterAll(async () => {
    await shim.stop();
    fx.cleanup();
  });

  it('runs the whole lifecycle: Create, State, Start, Wait, State, Delete', async () => {
    const id = nextId();
    const { pid } = await shim.client.create({ id, bundle: fx.bundle(['sh', '-c', 'exit 3']) });
    expect(pid).toBeGreaterThan(0);

    const created = await shim.client.state(id);
    expect(created.status).toBe(Status.CREATED);
    expect(created.pid).toBe(pid);
    expect(created.has_exited_at).toBe(false);

    expect((await shim.client.start(id)).pid).toBe(pid);
    const waited = await shim.client.wait(id);
    expect(waited.exit_status).toBe(3);
    expect(waited.has_exited_at).toBe(true);

    const stopped = await shim.client.state(id);
    expect(stopped.status).toBe(Status.STOPPED);
    expect(stopped.exit_status).toBe(3);

    const deleted = await shim.client.delete(id);
    expect({ pid: deleted.pid, exit: deleted.exit_status }).toEqual({ pid, exit: 3 });
    expect(deleted.exited_at.seconds).toBe(waited.exited_at.seconds);
    expect(await codeOf(shim.client.state(id))).toBe(Code.NOT_FOUND);
  });

  it('answers a Wait sent before Start, and every concurrent Wait', async () => {
    const id = nextId();
    await shim.client.create({ id, bundle: fx.bundle(['sh', '-c', 'sleep 0.2; exit 4']) });
    const waits = [shim.client.wait(id), shim.client.wait(id), shim.client.wait(id)];
    await shim.client.start(id);
    expect((await Promise.all(waits)).map((w) => w.exit_status)).toEqual([4, 4, 4]);
    expect((await shim.client.wait(id)).exit_status).toBe(4);
    await shim.client.delete(id);
  });

  it('runs several tasks side by side, addressed by id', async () => {
    const ids = [nextId(), nextId(), nextId()];
    await Promise.all(
      ids.map((id, i) => shim.client.create({ id, bundle: fx.bundle(['sh', '-c', `exit ${10 + i}`]) })),
    );
    await Promise.all(ids.map((id) => shim.client.start(id)));
    const exits = await Promise.all(ids.map((id) => shim.client.wait(id)));
    expect(exits.map((e) => e.exit_status)).toEqual([10, 11, 12]);
    await Promise.all(ids.map((id) => shim.client.delete(id)));
  });

  it.each([
    ['SIGTERM', 15, 143],
    ['SIGKILL', 9, 137],
    ['SIGINT', 2, 130],
    ['SIGHUP', 1, 129],
  ])('reports %s as 128+signal', async (_name, signal, expected) => {
    const id = nextId();
    await shim.client.create({ id, bundle: fx.bundle(['sleep', '100']) });
    await shim.client.start(id);
    await shim.client.kill(id, signal);
    expect((await shim.client.wait(id)).exit_status).toBe(expected);
    await shim.client.delete(id);
  });

  it('signals every process of the task with Kill all', async () => {
    const id = nextId();
    await shim.client.create({ id, bundle: fx.bundle(['sh', '-c', 'sleep 100 & sleep 100 & wait']) });
    await shim.client.start(id);
    await waitFor('the children', async () => (await shim.client.pids(id)).processes.length >= 3);
    await shim.client.kill(id, 9, { all: true });
    expect((await shim.client.wait(id)).exit_status).toBe(137);
    await shim.client.delete(id);
  });

  it('pauses and resumes the whole task: output stops advancing while PAUSED', async () => {
    const id = nextId();
    const out = mkfifo(join(shim.dir, `${id}.out`));
    const tail = tailFifo(out);
    await shim.client.create({
      id,
      bundle: fx.bundle(['sh', '-c', 'i=0; while true; do i=$((i+1)); echo $i; sleep 0.02; done']),
      stdout: out,
    });
    await shim.client.start(id);
    await waitFor('the counter to count', () => tail.last() > 3);
    await shim.client.pause(id);
    expect((await shim.client.state(id)).status).toBe(Status.PAUSED);
    await new Promise((r) => setTimeout(r, 100)); // lines already in the pipe arrive
    const pausedAt = tail.last();
    await new Promise((r) => setTimeout(r, 400));
    expect(tail.last()).toBe(pausedAt);
    await shim.client.resume(id);
    expect((await shim.client.state(id)).status).toBe(Status.RUNNING);
    await waitFor('the counter to go on', () => tail.last() > pausedAt + 2);
    await shim.client.kill(id, 9);
    await shim.client.wait(id);
    await shim.client.delete(id);
    await tail.done;
  });

  it('execs additional processes: State names task and exec, Wait and Delete work per exec', async () => {
    const id = nextId();
    await shim.client.create({ id, bundle: fx.bundle(['sleep', '100']) });
    await shim.client.start(id);
    await shim.client.exec(id, 'e1', { args: ['sh', '-c', 'exit 5'], env: ['PATH=/usr/bin:/bin'], cwd: '/' });
    await shim.client.exec(id, 'e2', { args: ['sleep', '100'], env: ['PATH=/usr/bin:/bin'], cwd: '/' });

    const e1 = await shim.client.state(id, 'e1');
    expect({ id: e1.id, exec_id: e1.exec_id, status: e1.status, pid: e1.pid }).toEqual({
      id,
      exec_id: 'e1',
      status: Status.CREATED,
      pid: 0,
    });

    const { pid: e1pid } = await shim.client.start(id, 'e1');
    const { pid: e2pid } = await shim.client.start(id, 'e2');
    expect((await shim.client.wait(id, 'e1')).exit_status).toBe(5);

    const pids = (await shim.client.pids(id)).processes;
    const e2info = pids.find((p) => p.pid === e2pid);
    expect(e2info?.info.type_url).toBe('skiff.v1.ProcessDetails');
    expect(skiff.v1.ProcessDetails.deserialize(e2info!.info.value).exec_id).toBe('e2');
    expect(pids.map((p) => p.pid)).toContain((await shim.client.state(id)).pid);
    expect(pids.map((p) => p.pid)).not.toContain(e1pid);

    expect((await shim.client.delete(id, 'e1')).exit_status).toBe(5);
    await shim.client.kill(id, 15, { exec_id: 'e2' });
    expect((await shim.client.wait(id, 'e2')).exit_status).toBe(143);
    await shim.client.delete(id, 'e2');
    expect((await shim.client.state(id)).status).toBe(Status.RUNNING);
    await shim.client.kill(id, 9);
    await shim.client.wait(id);
    await shim.client.delete(id);
  });

  it('reports Stats as skiff.v1.TaskStats read from the running task', async () => {
    const id = nextId();
    await shim.client.create({
      id,
      bundle: fx.bundle(['sh', '-c', 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; sleep 100']),
    });
    await shim.client.start(id);
    await new Promise((r) => setTimeout(r, 300));
    const { stats } = await shim.client.stats(id);
    expect(stats.type_url).toBe('skiff.v1.TaskStats');
    const decoded = skiff.v1.TaskStats.deserialize(stats.value);
    expect(decoded.runtime).toBe(runtimeName);
    expect(decoded.pids_current).toBeGreaterThanOrEqual(1);
    expect(decoded.memory_rss_bytes).toBeGreaterThan(0);
    expect(decoded.cpu_usage_ns).toBeGreaterThan(0);
    await shim.client.kill(id, 9);
    await shim.client.wait(id);
    await shim.client.delete(id);
  });

  it('connects: the shim pid, the task pid and the version', async () => {
    const id = nextId();
    const { pid } = await shim.client.create({ id, bundle: fx.bundle(['true']) });
    const reply = await shim.client.connect(id);
    expect(reply.shim_pid).toBe(shim.child.pid);
    expect(reply.task_pid).toBe(pid);
    expect(reply.version).toBe(require('../../../package.json').version);
    await shim.client.delete(id);
  });
});

/** Follows a FIFO from another process; `last()` is the last whole number line read. */
function tailFifo(path: string): { last: () => number; done: Promise<string> } {
  const reader = readFifoInAnotherProcess(path);
  return { last: () => lastNumber(reader.output()), done: reader.done };
}

function lastNumber(text: string): number {
  const lines = text.split('\n').filter((l) => /^\d+$/.test(l));
  return lines.length === 0 ? 0 : Number(lines[lines.length - 1]);
}
