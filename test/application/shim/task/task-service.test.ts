import { TaskService } from '../../../../src/application/shim/task/task-service';
import {
  AlreadyExistsError,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  UnimplementedError,
} from '../../../../src/domain/shared/errors';
import { OCI_PROCESS_TYPE_URL, OCI_RESOURCES_TYPE_URL } from '../../../../src/application/shim/task/any-payload';
import { CreateTaskInput } from '../../../../src/application/shim/task/task-messages';
import { BundleFactory } from '../../../support/bundles';
import { shimWithFakes } from '../../../support/test-container';

const bundles = new BundleFactory();
afterAll(() => bundles.cleanup());

const NO_STDIO = { stdin: '', stdout: '', stderr: '', terminal: false };

function createInput(id: string, args: string[]): CreateTaskInput {
  return { id, bundle: bundles.make(args), rootfs: [], checkpoint: '', parentCheckpoint: '', ...NO_STDIO };
}

function jsonAny(typeUrl: string, value: unknown) {
  return { typeUrl, value: new TextEncoder().encode(JSON.stringify(value)) };
}

function setup() {
  return shimWithFakes();
}

describe('TaskService lifecycle', () => {
  it('creates a task in CREATED with its pid, runs it at Start and keeps the exit until Delete', async () => {
    const { service, clock } = setup();
    const { pid } = await service.create(createInput('t1', ['sh', '-c', 'exit 7']));
    expect(pid).toBeGreaterThan(0);
    expect(service.state({ id: 't1', execId: '' })).toMatchObject({ status: 'created', pid, exitedAt: undefined });

    expect(await service.start({ id: 't1', execId: '' })).toEqual({ pid });
    const exit = await service.wait({ id: 't1', execId: '' });
    expect(exit).toEqual({ exitStatus: 7, exitedAt: clock.current });
    expect(service.state({ id: 't1', execId: '' })).toMatchObject({
      status: 'stopped',
      exitStatus: 7,
      exitedAt: clock.current,
    });

    expect(await service.delete({ id: 't1', execId: '' })).toEqual({ pid, exitStatus: 7, exitedAt: clock.current });
    expect(() => service.state({ id: 't1', execId: '' })).toThrow(NotFoundError);
  });

  it('wakes every waiter, including one that arrived before Start', async () => {
    const { service, runtime } = setup();
    await service.create(createInput('t1', ['sleep', '100']));
    const waits = [1, 2, 3].map(() => service.wait({ id: 't1', execId: '' }));
    await service.start({ id: 't1', execId: '' });
    runtime.task('t1').exit({ code: 3, signal: null });
    const results = await Promise.all(waits);
    expect(results.map((r) => r.exitStatus)).toEqual([3, 3, 3]);
    // and returns at once after the exit
    expect((await service.wait({ id: 't1', execId: '' })).exitStatus).toBe(3);
  });

  it('judges every request inside the process queue: a Kill sent behind a Delete finds the task gone', async () => {
    const { service, runtime } = setup();
    await service.create(createInput('t1', ['sleep', '100']));
    const deleted = service.delete({ id: 't1', execId: '' });
    const killed = service.kill({ id: 't1', execId: '', signal: 15, all: false });
    await deleted;
    await expect(killed).rejects.toThrow(NotFoundError);
    expect(runtime.task('t1').signals).not.toContain(15);
  });

  it('judges Pause and Update in the queue too: an Update behind a Delete is refused, not applied', async () => {
    const { service } = setup();
    await service.create(createInput('t1', ['sleep', '100']));
    const deleted = service.delete({ id: 't1', execId: '' });
    const updated = service.update({
      id: 't1',
      resources: jsonAny(OCI_RESOURCES_TYPE_URL, {}),
      annotations: new Map(),
    });
    await deleted;
    await expect(updated).rejects.toThrow(NotFoundError);
  });

  it('keeps STOPPED when the exit arrives before Start resolves', async () => {
    const { service, runtime } = setup();
    await service.create(createInput('t1', ['sleep', '100']));
    runtime.task('t1').exitDuringStart = { code: 0, signal: null };
    await service.start({ id: 't1', execId: '' });
    expect(service.state({ id: 't1', execId: '' }).status).toBe('stopped');
  });

  it('reports 128+signal for a process a signal ended', async () => {
    const { service } = setup();
    await service.create(createInput('t1', ['sleep', '100']));
    await service.start({ id: 't1', execId: '' });
    await service.kill({ id: 't1', execId: '', signal: 9, all: false });
    expect((await service.wait({ id: 't1', execId: '' })).exitStatus).toBe(137);
  });

  it('deletes a CREATED task (killing what never ran) and reports its exit', async () => {
    const { service, runtime } = setup();
    await service.create(createInput('t1', ['sleep', '100']));
    const view = await service.delete({ id: 't1', execId: '' });
    expect(view.exitStatus).toBe(137);
    expect(runtime.task('t1').started).toBe(false);
    expect(runtime.task('t1').deleted).toBe(true);
  });

  it('serialises concurrent Starts: one runs, the other is refused', async () => {
    const { service } = setup();
    await service.create(createInput('t1', ['sleep', '100']));
    const results = await Promise.allSettled([
      service.start({ id: 't1', execId: '' }),
      service.start({ id: 't1', execId: '' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(FailedPreconditionError);
    expect(refused.reason.message).toBe('cannot start task "t1" in running state');
  });

  it('pauses and resumes the task', async () => {
    const { service, runtime } = setup();
    await service.create(createInput('t1', ['sleep', '100']));
    await service.start({ id: 't1', execId: '' });
    await service.pause('t1');
    expect(runtime.task('t1').paused).toBe(true);
    expect(service.state({ id: 't1', execId: '' }).status).toBe('paused');
    await service.resume('t1');
    expect(service.state({ id: 't1', execId: '' }).status).toBe('running');
  });

  it('keeps a failed Start from changing the state', async () => {
    const { service, runtime } = setup();
    await service.create(createInput('t1', ['sleep', '100']));
    runtime.task('t1').failNextStartWith = new Error('boom');
    await expect(service.start({ id: 't1', execId: '' })).rejects.toThrow('boom');
    expect(service.state({ id: 't1', execId: '' }).status).toBe('created');
  });
});

describe('TaskService exec processes', () => {
  const spec = (args: string[]) => jsonAny(OCI_PROCESS_TYPE_URL, { args, cwd: '/', env: ['PATH=/bin'] });

  async function running() {
    const ctx = setup();
    await ctx.service.create(createInput('t1', ['sleep', '100']));
    await ctx.service.start({ id: 't1', execId: '' });
    return ctx;
  }

  it('adds an exec in CREATED with pid 0, starts it, waits and deletes it', async () => {
    const { service } = await running();
    await service.exec({ id: 't1', execId: 'e1', spec: spec(['sh', '-c', 'exit 5']), ...NO_STDIO });
    expect(service.state({ id: 't1', execId: 'e1' })).toMatchObject({
      id: 't1',
      execId: 'e1',
      status: 'created',
      pid: 0,
    });
    const { pid } = await service.start({ id: 't1', execId: 'e1' });
    expect(pid).toBeGreaterThan(0);
    expect((await service.wait({ id: 't1', execId: 'e1' })).exitStatus).toBe(5);
    expect((await service.delete({ id: 't1', execId: 'e1' })).exitStatus).toBe(5);
    expect(() => service.state({ id: 't1', execId: 'e1' })).toThrow(NotFoundError);
  });

  it('refuses a second exec with the same id, but allows it again after Delete', async () => {
    const { service } = await running();
    await service.exec({ id: 't1', execId: 'e1', spec: spec(['true']), ...NO_STDIO });
    await expect(service.exec({ id: 't1', execId: 'e1', spec: spec(['true']), ...NO_STDIO })).rejects.toThrow(
      AlreadyExistsError,
    );
    await service.delete({ id: 't1', execId: 'e1' });
    await expect(service.exec({ id: 't1', execId: 'e1', spec: spec(['true']), ...NO_STDIO })).resolves.toBeUndefined();
  });

  it.each([
    ['an empty exec id', '', spec(['true']), InvalidArgumentError],
    ['an unsafe exec id', '../x', spec(['true']), InvalidArgumentError],
    ['no spec', 'e1', undefined, InvalidArgumentError],
    [
      'a spec of another type',
      'e1',
      { typeUrl: 'types.containerd.io/other', value: new Uint8Array() },
      InvalidArgumentError,
    ],
    [
      'a garbage spec',
      'e1',
      { typeUrl: OCI_PROCESS_TYPE_URL, value: new Uint8Array([0xff, 0xfe, 0x00]) },
      InvalidArgumentError,
    ],
    ['a spec without args', 'e1', jsonAny(OCI_PROCESS_TYPE_URL, { cwd: '/' }), InvalidArgumentError],
    ['a missing executable', 'e1', spec(['no-such-program']), InvalidArgumentError],
  ])('refuses %s with INVALID_ARGUMENT and leaves no exec behind', async (_why, execId, payload, kind) => {
    const { service } = await running();
    await expect(service.exec({ id: 't1', execId, spec: payload, ...NO_STDIO })).rejects.toThrow(kind);
    if (execId === 'e1') expect(() => service.state({ id: 't1', execId })).toThrow(NotFoundError);
  });

  it('refuses to kill an exec that was never started', async () => {
    const { service } = await running();
    await service.exec({ id: 't1', execId: 'e1', spec: spec(['sleep', '1']), ...NO_STDIO });
    await expect(service.kill({ id: 't1', execId: 'e1', signal: 15, all: false })).rejects.toThrow(
      /process not created/,
    );
  });

  it('reports an exec of a paused task as PAUSED, and refuses exec while paused', async () => {
    const { service } = await running();
    await service.exec({ id: 't1', execId: 'e1', spec: spec(['sleep', '100']), ...NO_STDIO });
    await service.start({ id: 't1', execId: 'e1' });
    await service.pause('t1');
    expect(service.state({ id: 't1', execId: 'e1' }).status).toBe('paused');
    await expect(service.exec({ id: 't1', execId: 'e2', spec: spec(['true']), ...NO_STDIO })).rejects.toThrow(
      FailedPreconditionError,
    );
  });

  it('ends the execs with the task: Delete of the init kills and forgets them', async () => {
    const { service, runtime } = await running();
    await service.exec({ id: 't1', execId: 'e1', spec: spec(['sleep', '100']), ...NO_STDIO });
    await service.start({ id: 't1', execId: 'e1' });
    await service.kill({ id: 't1', execId: '', signal: 9, all: false });
    await service.wait({ id: 't1', execId: '' });
    await service.delete({ id: 't1', execId: '' });
    const exec = runtime.task('t1').execs.get('e1');
    expect(exec?.signals).toContain(9);
    expect(exec?.deleted).toBe(true);
  });

  it('tells a waiter of an exec deleted before it ran that it is gone', async () => {
    const { service } = await running();
    await service.exec({ id: 't1', execId: 'e1', spec: spec(['true']), ...NO_STDIO });
    const waiting = service.wait({ id: 't1', execId: 'e1' });
    await service.delete({ id: 't1', execId: 'e1' });
    await expect(waiting).rejects.toThrow(NotFoundError);
  });

  it('lists pids and marks the exec ones', async () => {
    const { service } = await running();
    await service.exec({ id: 't1', execId: 'e1', spec: spec(['sleep', '100']), ...NO_STDIO });
    const { pid } = await service.start({ id: 't1', execId: 'e1' });
    const pids = await service.pids('t1');
    expect(pids).toContainEqual({ pid, execId: 'e1' });
    expect(pids).toContainEqual({ pid: service.state({ id: 't1', execId: '' }).pid, execId: undefined });
  });
});

describe('TaskService errors (docs/shim-contract.md, "Errors")', () => {
  it('answers NOT_FOUND for an unknown id before judging anything else', async () => {
    const { service } = setup();
    const ref = { id: 'nope', execId: '' };
    expect(() => service.state(ref)).toThrow(NotFoundError);
    await expect(service.start(ref)).rejects.toThrow(NotFoundError);
    await expect(service.delete(ref)).rejects.toThrow(NotFoundError);
    await expect(service.wait(ref)).rejects.toThrow(NotFoundError);
    await expect(service.kill({ ...ref, signal: 999, all: false })).rejects.toThrow(NotFoundError);
    await expect(service.pause('nope')).rejects.toThrow(NotFoundError);
    await expect(service.resume('nope')).rejects.toThrow(NotFoundError);
    await expect(service.pids('nope')).rejects.toThrow(NotFoundError);
    await expect(service.stats('nope')).rejects.toThrow(NotFoundError);
    await expect(service.update({ id: 'nope', resources: undefined, annotations: new Map() })).rejects.toThrow(
      NotFoundError,
    );
    await expect(service.checkpoint({ id: 'nope', path: 'relative' })).rejects.toThrow(NotFoundError);
    await expect(service.closeIO({ ...ref, stdin: true })).rejects.toThrow(NotFoundError);
    await expect(service.resizePty({ ...ref, width: 1, height: 1 })).rejects.toThrow(NotFoundError);
    await expect(service.exec({ ...ref, execId: '', spec: undefined, ...NO_STDIO })).rejects.toThrow(NotFoundError);
    expect(() => service.connect('nope')).toThrow(NotFoundError);
    expect(() => service.state({ id: '../etc', execId: '' })).toThrow('task "../etc" not found');
  });

  it('answers NOT_FOUND for an unknown exec id of a known task', async () => {
    const { service } = setup();
    await service.create(createInput('t1', ['sleep', '100']));
    expect(() => service.state({ id: 't1', execId: 'e9' })).toThrow('exec "e9" of task "t1" not found');
  });

  it('refuses a second Create of an id, also while the first is still in flight', async () => {
    const { service } = setup();
    const input = createInput('t1', ['sleep', '100']);
    const results = await Promise.allSettled([service.create(input), service.create(input)]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    await expect(service.create(input)).rejects.toThrow(AlreadyExistsError);
  });

  it.each([
    ['an empty id', { id: '' }],
    ['an unsafe id', { id: 'a/../b' }],
    ['a bundle that does not exist', { bundle: '/no/such/bundle' }],
    ['a relative bundle path', { bundle: 'relative/bundle' }],
  ])('refuses Create with %s as INVALID_ARGUMENT', async (_why, override) => {
    const { service } = setup();
    await expect(service.create({ ...createInput('t1', ['true']), ...override })).rejects.toThrow(InvalidArgumentError);
  });

  it.each([
    ['no config.json', 'missing'],
    ['malformed JSON', '{"process": '],
    ['a spec without process', { ociVersion: '1.0.2' }],
    ['a process without args', { process: { args: [] } }],
  ])('refuses a bundle with %s, naming config.json', async (_why, config) => {
    const { service } = setup();
    const bundle = config === 'missing' ? bundles.root : bundles.makeWithConfig(config);
    await expect(service.create({ ...createInput('t1', ['true']), bundle })).rejects.toThrow(/config\.json/);
    await expect(service.create({ ...createInput('t1', ['true']), bundle })).rejects.toThrow(InvalidArgumentError);
  });

  it('frees the id when the runtime refuses a Create', async () => {
    const { service, runtime } = setup();
    runtime.failNextCreateWith = new InvalidArgumentError('no', 'X');
    await expect(service.create(createInput('t1', ['true']))).rejects.toThrow(InvalidArgumentError);
    await expect(service.create(createInput('t1', ['true']))).resolves.toMatchObject({ pid: expect.any(Number) });
  });

  it('refuses Start of a running process, Delete of a running one and Resume of a running one', async () => {
    const { service } = setup();
    await service.create(createInput('t1', ['sleep', '100']));
    await service.start({ id: 't1', execId: '' });
    await expect(service.start({ id: 't1', execId: '' })).rejects.toThrow(FailedPreconditionError);
    await expect(service.delete({ id: 't1', execId: '' })).rejects.toThrow('cannot delete task "t1" in running state');
    await expect(service.resume('t1')).rejects.toThrow(FailedPreconditionError);
  });

  it('answers NOT_FOUND "process already finished" to a Kill after exit', async () => {
    const { service } = setup();
    await service.create(createInput('t1', ['true']));
    await service.start({ id: 't1', execId: '' });
    await service.wait({ id: 't1', execId: '' });
    await expect(service.kill({ id: 't1', execId: '', signal: 15, all: false })).rejects.toThrow(
      /process already finished/,
    );
    await expect(service.kill({ id: 't1', execId: '', signal: 15, all: false })).rejects.toThrow(NotFoundError);
  });

  it.each([-1, 65, 1.5])('refuses signal %p', async (signal) => {
    const { service } = setup();
    await service.create(createInput('t1', ['sleep', '100']));
    await expect(service.kill({ id: 't1', execId: '', signal, all: false })).rejects.toThrow(InvalidArgumentError);
  });

  it('sends Kill with all to every process of the task', async () => {
    const { service, runtime } = setup();
    await service.create(createInput('t1', ['sleep', '100']));
    await service.start({ id: 't1', execId: '' });
    await service.kill({ id: 't1', execId: '', signal: 9, all: true });
    expect((await service.wait({ id: 't1', execId: '' })).exitStatus).toBe(137);
    expect(runtime.task('t1').signals).toEqual([]); // delivered through killAll, not kill
  });

  it('refuses parent_checkpoint as UNIMPLEMENTED and a relative checkpoint path as INVALID_ARGUMENT', async () => {
    const { service } = setup();
    await expect(service.create({ ...createInput('t1', ['true']), parentCheckpoint: '/x' })).rejects.toThrow(
      UnimplementedError,
    );
    await service.create(createInput('t2', ['sleep', '100']));
    await service.start({ id: 't2', execId: '' });
    await expect(service.checkpoint({ id: 't2', path: 'rel' })).rejects.toThrow(InvalidArgumentError);
    await service.checkpoint({ id: 't2', path: '/tmp/cp' });
  });
});

describe('TaskService update, stats, terminals, connect and shutdown', () => {
  it('decodes OCI LinuxResources JSON for Update and refuses other payloads', async () => {
    const { service, runtime } = setup();
    await service.create(createInput('t1', ['sleep', '100']));
    await service.update({
      id: 't1',
      resources: jsonAny(OCI_RESOURCES_TYPE_URL, { pids: { limit: 5 } }),
      annotations: new Map(),
    });
    expect(runtime.task('t1').updates).toEqual([{ pids: { limit: 5 } }]);
    await expect(
      service.update({ id: 't1', resources: jsonAny(OCI_RESOURCES_TYPE_URL, [1]), annotations: new Map() }),
    ).rejects.toThrow(InvalidArgumentError);
    await expect(service.update({ id: 't1', resources: jsonAny('x/y', {}), annotations: new Map() })).rejects.toThrow(
      InvalidArgumentError,
    );
  });

  it('refuses Update of a stopped task', async () => {
    const { service } = setup();
    await service.create(createInput('t1', ['true']));
    await service.start({ id: 't1', execId: '' });
    await service.wait({ id: 't1', execId: '' });
    await expect(service.update({ id: 't1', resources: undefined, annotations: new Map() })).rejects.toThrow(
      FailedPreconditionError,
    );
  });

  it('passes the runtime name with the stats', async () => {
    const { service } = setup();
    await service.create(createInput('t1', ['sleep', '100']));
    await service.start({ id: 't1', execId: '' });
    expect(await service.stats('t1')).toMatchObject({ runtime: 'fake', pidsCurrent: 1 });
  });

  it('resizes a terminal and refuses a process without one', async () => {
    const { service, runtime } = setup();
    await service.create({ ...createInput('t1', ['sleep', '100']), terminal: true });
    await service.resizePty({ id: 't1', execId: '', width: 100, height: 40 });
    expect(runtime.task('t1').resizes).toEqual([[100, 40]]);
    await service.create(createInput('t2', ['sleep', '100']));
    await expect(service.resizePty({ id: 't2', execId: '', width: 1, height: 1 })).rejects.toThrow(
      FailedPreconditionError,
    );
  });

  it('closes stdin on CloseIO', async () => {
    const { service, runtime } = setup();
    await service.create(createInput('t1', ['sleep', '100']));
    await service.closeIO({ id: 't1', execId: '', stdin: true });
    expect(runtime.task('t1').stdinClosed).toBe(true);
  });

  it('connects: shim pid, task pid and version', async () => {
    const { service, host } = setup();
    const { pid } = await service.create(createInput('t1', ['sleep', '100']));
    expect(service.connect('t1')).toEqual({ shimPid: host.pid, taskPid: pid, version: host.version });
  });

  it("connects a live sandbox's id to its process, and keeps serving on Shutdown while a sandbox lives (containerd's restart: docs/sandbox-api.md)", async () => {
    const { runtime, clock, host, events, journal } = setup();
    const sandboxes = { count: 1, pidOf: (id: string) => (id === 'pod1' ? 4321 : undefined) };
    const service = new TaskService(runtime, clock, host, events, journal, sandboxes);
    expect(service.connect('pod1')).toEqual({ shimPid: host.pid, taskPid: 4321, version: host.version });
    expect(() => service.connect('pod2')).toThrow(NotFoundError);
    await service.shutdown({ id: 'c1', now: false });
    expect(host.exitRequests).toBe(0);
    sandboxes.count = 0;
    await service.shutdown({ id: 'c1', now: false });
    expect(host.exitRequests).toBe(1);
  });

  it('keeps serving on Shutdown while tasks are left, exits when none is', async () => {
    const { service, host } = setup();
    await service.create(createInput('t1', ['true']));
    await service.shutdown({ id: 't', now: false });
    expect(host.exitRequests).toBe(0);
    await service.start({ id: 't1', execId: '' });
    await service.wait({ id: 't1', execId: '' });
    await service.delete({ id: 't1', execId: '' });
    await service.shutdown({ id: 't', now: false });
    expect(host.exitRequests).toBe(1);
  });

  it('kills what is left and exits on Shutdown with now', async () => {
    const { service, host, runtime } = setup();
    await service.create(createInput('t1', ['sleep', '100']));
    await service.start({ id: 't1', execId: '' });
    await service.create(createInput('t2', ['sleep', '100']));
    await service.shutdown({ id: 't', now: true });
    expect(host.exitRequests).toBe(1);
    expect(runtime.task('t1').hasExited).toBe(true);
    expect(runtime.task('t2').deleted).toBe(true);
    expect(service.taskCount).toBe(0);
  });

  it('stops everything with SIGTERM first, continuing paused tasks so the signal lands', async () => {
    const { service, runtime } = setup();
    await service.create(createInput('t1', ['sleep', '100']));
    await service.start({ id: 't1', execId: '' });
    await service.pause('t1');
    await service.stopEverything(1000);
    expect(runtime.task('t1').paused).toBe(false);
    expect(runtime.task('t1').signals[0]).toBe(15);
  });
});
