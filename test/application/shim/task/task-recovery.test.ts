import { FailedPreconditionError } from '../../../../src/domain/shared/errors';
import { OCI_PROCESS_TYPE_URL } from '../../../../src/application/shim/task/any-payload';
import { CreateTaskInput } from '../../../../src/application/shim/task/task-messages';
import { FakeProcessRuntime } from '../../../../src/adapters/fakes/shim/fake-process-runtime';
import { InMemoryTaskJournal } from '../../../../src/adapters/fakes/shim/in-memory-task-journal';
import { BundleFactory } from '../../../support/bundles';
import { shimWithFakes } from '../../../support/test-container';

const bundles = new BundleFactory();
afterAll(() => bundles.cleanup());

const NO_STDIO = { stdin: '', stdout: '', stderr: '', terminal: false };
const init = (id: string) => ({ id, execId: '' });

function createInput(id: string, args: string[]): CreateTaskInput {
  return { id, bundle: bundles.make(args), rootfs: [], checkpoint: '', parentCheckpoint: '', ...NO_STDIO };
}

function spec(args: string[]) {
  return { typeUrl: OCI_PROCESS_TYPE_URL, value: new TextEncoder().encode(JSON.stringify({ args, cwd: '/' })) };
}

/** Lets the records written without awaiting (start, exit, pause...) land. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** The in-memory journal whose writes wait until the test lets them land. */
class HeldJournal extends InMemoryTaskJournal {
  private readonly held: Array<() => void> = [];

  override async record(task: Parameters<InMemoryTaskJournal['record']>[0]): Promise<void> {
    await new Promise<void>((resolve) => this.held.push(resolve));
    await super.record(task);
  }

  releaseOne(): void {
    this.held.shift()?.();
  }

  get waiting(): number {
    return this.held.length;
  }
}

describe('TaskService records every transition in the journal', () => {
  it('says when every record asked for so far is written (what a hand-over waits for)', async () => {
    const journal = new HeldJournal();
    const { service } = shimWithFakes(journal);
    const first = service.create(createInput('t1', ['sleep', '100']));
    await settle();
    let settled = false;
    const waiting = service.recordsSettled().then(() => (settled = true));
    // A record asked for while it waits is waited for too.
    const second = service.create(createInput('t2', ['sleep', '100']));
    await settle();
    expect([settled, journal.waiting]).toEqual([false, 2]);
    journal.releaseOne();
    await first;
    await settle();
    expect(settled).toBe(false);
    journal.releaseOne();
    await Promise.all([second, waiting]);
    expect([journal.get('t1')?.id, journal.get('t2')?.id]).toEqual(['t1', 't2']);
  });

  it('from Create to Delete, execs included, and forgets the task at Delete', async () => {
    const { service, journal, runtime, clock } = shimWithFakes();
    const { pid } = await service.create(createInput('t1', ['sleep', '100']));
    // Create waits for its record: the pid it hands out is on disk first.
    expect(journal.get('t1')).toMatchObject({ id: 't1', runtime: 'fake', init: { pid, status: 'created' }, execs: [] });

    await service.start(init('t1'));
    await settle();
    expect(journal.get('t1')?.init.status).toBe('running');

    await service.exec({ id: 't1', execId: 'e1', spec: spec(['sleep', '5']), ...NO_STDIO });
    await settle();
    expect(journal.get('t1')?.execs).toEqual([
      expect.objectContaining({ execId: 'e1', pid: 0, status: 'created', spec: { args: ['sleep', '5'], cwd: '/' } }),
    ]);
    const { pid: execPid } = await service.start({ id: 't1', execId: 'e1' });
    await settle();
    expect(journal.get('t1')?.execs[0]).toMatchObject({ pid: execPid, status: 'running' });
    runtime.task('t1').execs.get('e1')?.exit({ code: 3, signal: null });
    await settle();
    expect(journal.get('t1')?.execs[0]).toMatchObject({
      status: 'stopped',
      exit: { status: 3, exitedAt: clock.current },
    });
    await service.delete({ id: 't1', execId: 'e1' });
    await settle();
    expect(journal.get('t1')?.execs).toEqual([]);

    await service.pause('t1');
    await settle();
    expect(journal.get('t1')?.init.status).toBe('paused');
    await service.resume('t1');
    await settle();
    expect(journal.get('t1')?.init.status).toBe('running');

    await service.kill({ id: 't1', execId: '', signal: 9, all: false });
    await service.wait(init('t1'));
    await settle();
    expect(journal.get('t1')?.init).toMatchObject({ status: 'stopped', exit: { status: 137 } });
    await service.delete(init('t1'));
    expect(journal.size).toBe(0);
  });

  it('replies only once the record holds the change, and lets go of an exit only once it is recorded', async () => {
    const { service, journal, runtime } = shimWithFakes();
    await service.create(createInput('t1', ['sleep', '100']));
    /** Runs `call` with the journal's writes held: it must not settle before they land. */
    async function waitsForItsRecord<T>(call: () => Promise<T>): Promise<T> {
      const release = journal.hold();
      let settled = false;
      const reply = call().finally(() => (settled = true));
      await settle();
      expect(settled).toBe(false);
      release();
      return reply;
    }
    await waitsForItsRecord(() => service.start(init('t1')));
    expect(journal.get('t1')?.init.status).toBe('running');
    await waitsForItsRecord(() => service.exec({ id: 't1', execId: 'e1', spec: spec(['sleep', '5']), ...NO_STDIO }));
    expect(journal.get('t1')?.execs).toHaveLength(1);
    const { pid } = await waitsForItsRecord(() => service.start({ id: 't1', execId: 'e1' }));
    expect(journal.get('t1')?.execs[0]).toMatchObject({ pid, status: 'running' });
    await waitsForItsRecord(() => service.pause('t1'));
    expect(journal.get('t1')?.init.status).toBe('paused');
    await waitsForItsRecord(() => service.resume('t1'));
    expect(journal.get('t1')?.init.status).toBe('running');
    await waitsForItsRecord(() => runtime.task('t1').execs.get('e1')?.exit({ code: 3, signal: null }) as Promise<void>);
    expect(journal.get('t1')?.execs[0]).toMatchObject({ status: 'stopped', exit: { status: 3 } });
    await waitsForItsRecord(() => service.delete({ id: 't1', execId: 'e1' }));
    expect(journal.get('t1')?.execs).toEqual([]);
  });

  it('writes changes that come quicker than the writes once, the newest last', async () => {
    const { service, journal } = shimWithFakes();
    await service.create(createInput('t1', ['sleep', '100']));
    const before = journal.writes;
    await service.start(init('t1'));
    await service.pause('t1');
    await service.resume('t1');
    await settle();
    expect(journal.writes - before).toBeLessThanOrEqual(3);
    expect(journal.get('t1')?.init.status).toBe('running');
  });

  it('forgets every task it ends when told to stop', async () => {
    const { service, journal } = shimWithFakes();
    await service.create(createInput('t1', ['sleep', '100']));
    await service.start(init('t1'));
    await service.stopEverything(0);
    await settle();
    expect(journal.size).toBe(0);
  });
});

describe('TaskService.recover: a new serving process takes over what the last one recorded', () => {
  /** A first server that made `running` (with a running exec) and `gone`, both started, then died. */
  async function previousServer() {
    const journal = new InMemoryTaskJournal();
    const { service } = shimWithFakes(journal);
    const running = await service.create(createInput('running', ['sleep', '100']));
    await service.start(init('running'));
    await service.exec({ id: 'running', execId: 'sh', spec: spec(['sleep', '100']), ...NO_STDIO });
    const exec = await service.start({ id: 'running', execId: 'sh' });
    const gone = await service.create(createInput('gone', ['sleep', '100']));
    await service.start(init('gone'));
    const fresh = await service.create(createInput('fresh', ['sleep', '100']));
    await settle();
    return { journal, pids: { running: running.pid, exec: exec.pid, gone: gone.pid, fresh: fresh.pid } };
  }

  it('answers State as before, learns exits after, and forgets at Delete', async () => {
    const { journal, pids } = await previousServer();
    const runtime = new FakeProcessRuntime();
    runtime.exitedMeanwhile.add(pids.gone);
    const { service, events } = shimWithFakes(journal, runtime);
    expect(await service.recover()).toEqual([]);
    await settle();

    expect(service.state(init('running'))).toMatchObject({ status: 'running', pid: pids.running });
    expect(service.state({ id: 'running', execId: 'sh' })).toMatchObject({ status: 'running', pid: pids.exec });
    expect(service.state(init('fresh'))).toMatchObject({ status: 'created' });
    // Exited while no server ran: STOPPED with the status nobody could read, published once.
    expect(service.state(init('gone'))).toMatchObject({ status: 'stopped', exitStatus: 255 });
    expect(events.published.filter((e) => e.topic === '/tasks/exit')).toEqual([
      expect.objectContaining({ id: 'gone', execId: '', pid: pids.gone, exitStatus: 255 }),
    ]);
    expect(journal.get('gone')?.init).toMatchObject({ status: 'stopped', exit: { status: 255 } });

    await service.kill({ id: 'running', execId: '', signal: 15, all: false });
    expect(await service.wait(init('running'))).toMatchObject({ exitStatus: 143 });
    await service.start(init('fresh'));
    for (const id of ['running', 'gone']) await service.delete(init(id));
    expect(journal.get('running')).toBeUndefined();
    expect(journal.get('gone')).toBeUndefined();
  });

  it("takes the runtime's view of a live init over a record one change behind (a crash between a reply and its record)", async () => {
    const { journal, pids } = await previousServer();
    const runtime = new FakeProcessRuntime();
    // `fresh` was started and `running` paused, and containerd told so, but neither record was written.
    runtime.seenAs.set(pids.fresh, 'running');
    runtime.seenAs.set(pids.running, 'paused');
    const { service } = shimWithFakes(journal, runtime);
    expect(await service.recover()).toEqual([]);
    expect(service.state(init('fresh'))).toMatchObject({ status: 'running', pid: pids.fresh });
    expect(service.state(init('running'))).toMatchObject({ status: 'paused' });
    await service.resume('running');
    expect(service.state(init('running'))).toMatchObject({ status: 'running' });
  });

  it('reports an exit the runtime learnt late (a pod keeper kept it through the restart) with the time it happened', async () => {
    const { journal, pids } = await previousServer();
    const runtime = new FakeProcessRuntime();
    const { service, events, clock } = shimWithFakes(journal, runtime);
    await service.recover();
    const happened = new Date(clock.current.getTime() - 3000);
    runtime.task('running').exit({ code: 7, signal: null, exitedAt: happened });
    await settle();
    expect(await service.wait(init('running'))).toEqual({ exitStatus: 7, exitedAt: happened });
    expect(service.state(init('running'))).toMatchObject({ status: 'stopped', exitStatus: 7, exitedAt: happened });
    expect(events.published.filter((e) => e.topic === '/tasks/exit')).toEqual([
      expect.objectContaining({ id: 'running', pid: pids.running, exitStatus: 7, exitedAt: happened }),
    ]);
    expect(journal.get('running')?.init.exit).toEqual({ status: 7, exitedAt: happened });
  });

  it("takes the runtime's word over a record that reads created: a Start in flight at the crash may have run", async () => {
    const { journal, pids } = await previousServer();
    const runtime = new FakeProcessRuntime();
    runtime.seenAs.set(pids.fresh, 'running');
    const { service } = shimWithFakes(journal, runtime);
    await service.recover();
    expect(service.state(init('fresh'))).toMatchObject({ status: 'running', pid: pids.fresh });
    await settle();
    expect(journal.get('fresh')?.init.status).toBe('running');
    await expect(service.start(init('fresh'))).rejects.toThrow(FailedPreconditionError);
  });

  it('takes over an exec its record says was never started but the runtime shows was made (a Start in flight at the crash)', async () => {
    const { journal } = await previousServer();
    const first = shimWithFakes(journal, new FakeProcessRuntime()).service;
    await first.recover();
    await first.exec({ id: 'running', execId: 'late', spec: spec(['sleep', '100']), ...NO_STDIO });
    await settle();
    expect(journal.get('running')?.execs.find((e) => e.execId === 'late')).toMatchObject({ pid: 0, status: 'created' });
    const runtime = new FakeProcessRuntime();
    runtime.execsMadeMeanwhile.set('running/late', { pid: 4242, startTime: 7 });
    const { service } = shimWithFakes(journal, runtime);
    expect(await service.recover()).toEqual([]);
    expect(service.state({ id: 'running', execId: 'late' })).toMatchObject({ status: 'running', pid: 4242 });
    await expect(service.start({ id: 'running', execId: 'late' })).rejects.toThrow(FailedPreconditionError);
    await runtime.task('running').execs.get('late')?.exit({ code: 3, signal: null });
    expect(await service.wait({ id: 'running', execId: 'late' })).toMatchObject({ exitStatus: 3 });
  });

  it('cancels what a Start in flight at the crash may still make of an exec the runtime does not show made; it can be started again', async () => {
    const { journal } = await previousServer();
    const first = shimWithFakes(journal, new FakeProcessRuntime()).service;
    await first.recover();
    await first.exec({ id: 'running', execId: 'late', spec: spec(['sleep', '100']), ...NO_STDIO });
    await settle();
    const runtime = new FakeProcessRuntime();
    const { service } = shimWithFakes(journal, runtime);
    expect(await service.recover()).toEqual([]);
    // Only the exec recorded as never started: `sh` was started and is taken over.
    expect(runtime.task('running').cancelledStarts).toEqual(['late']);
    expect(service.state({ id: 'running', execId: 'late' })).toMatchObject({ status: 'created', pid: 0 });
    const { pid } = await service.start({ id: 'running', execId: 'late' });
    expect(service.state({ id: 'running', execId: 'late' })).toMatchObject({ status: 'running', pid });
  });

  it('publishes an exit learnt once only, even across a second restart', async () => {
    const { journal, pids } = await previousServer();
    const second = new FakeProcessRuntime();
    second.exitedMeanwhile.add(pids.gone);
    await shimWithFakes(journal, second).service.recover();
    await settle();
    const thirdRuntime = new FakeProcessRuntime();
    thirdRuntime.exitedMeanwhile.add(pids.gone);
    const third = shimWithFakes(journal, thirdRuntime);
    await third.service.recover();
    await settle();
    expect(third.service.state(init('gone'))).toMatchObject({ status: 'stopped', exitStatus: 255 });
    expect(third.events.topics().filter((t) => t === '/tasks/exit')).toEqual([]);
  });

  it('skips what it cannot take over with one line each, and takes over the rest', async () => {
    const { journal } = await previousServer();
    journal.unreadable.push('skipped /state/tasks/bad/task.json: not JSON (a partial or corrupt write)');
    const other = journal.get('fresh');
    await journal.record({ ...(other as NonNullable<typeof other>), id: 'made-by-native', runtime: 'native' });
    const { service } = shimWithFakes(journal, new FakeProcessRuntime());
    const problems = await service.recover();
    expect(problems).toEqual([
      'skipped /state/tasks/bad/task.json: not JSON (a partial or corrupt write)',
      'task "made-by-native" not taken over: task "made-by-native" was made by the native runtime, which this server (--runtime fake) cannot take over',
    ]);
    expect(service.taskCount).toBe(3);
    expect(() => service.state(init('made-by-native'))).toThrow(/not found/);
  });

  it("removes what a Create cut short by the crash left at containerd's Delete of it, which still finds no task", async () => {
    const { journal } = await previousServer();
    const runtime = new FakeProcessRuntime();
    runtime.leftovers.add('half');
    const { service, host } = shimWithFakes(journal, runtime);
    await service.recover();
    await expect(service.delete(init('half'))).rejects.toThrow('task "half" not found');
    expect([...runtime.leftovers]).toEqual([]);
    expect(host.warnings).toEqual(['task "half": removed what its Create, cut short by a crash, left']);
    // A task being made now is not a leftover: its Create goes on.
    runtime.leftovers.add('making');
    const making = service.create(createInput('making', ['sleep', '100']));
    await expect(service.delete(init('making'))).rejects.toThrow('task "making" not found');
    await making;
    expect([...runtime.leftovers]).toEqual(['making']);
    await expect(service.delete({ id: 'half', execId: 'e1' })).rejects.toThrow('task "half" not found');
    expect(host.warnings).toHaveLength(1);
  });

  it('refuses what its state rules refuse, as if it had made the task', async () => {
    const { journal } = await previousServer();
    const { service } = shimWithFakes(journal, new FakeProcessRuntime());
    await service.recover();
    await expect(service.start(init('running'))).rejects.toThrow(FailedPreconditionError);
    await expect(service.delete(init('running'))).rejects.toThrow(FailedPreconditionError);
  });
});
