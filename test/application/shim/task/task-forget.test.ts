import { NotFoundError } from '../../../../src/domain/shared/errors';
import { OCI_PROCESS_TYPE_URL } from '../../../../src/application/shim/task/any-payload';
import { CreateTaskInput } from '../../../../src/application/shim/task/task-messages';
import { BundleFactory } from '../../../support/bundles';
import { shimWithFakes } from '../../../support/test-container';

const bundles = new BundleFactory();
afterAll(() => bundles.cleanup());

function createInput(id: string): CreateTaskInput {
  return {
    id,
    bundle: bundles.make(['sleep', '100']),
    rootfs: [],
    checkpoint: '',
    parentCheckpoint: '',
    stdin: '',
    stdout: '/f/out',
    stderr: '/f/err',
    terminal: false,
  };
}

const spec = {
  typeUrl: OCI_PROCESS_TYPE_URL,
  value: new TextEncoder().encode(JSON.stringify({ args: ['sleep', '100'], cwd: '/' })),
};

/**
 * Forget (docs/keeper-protocol.md, "`delete`"): a task whose pod keeper died is removed by
 * containerd's `delete`, which tells the serving process to let it go.
 */
describe('TaskService.forget', () => {
  it('drops the task with its execs and no event, frees what the runtime holds, and fails its Waits', async () => {
    const { service, events, runtime, journal, host } = shimWithFakes();
    await service.create(createInput('a1'));
    await service.start({ id: 'a1', execId: '' });
    await service.exec({ id: 'a1', execId: 'e1', terminal: false, stdin: '', stdout: '', stderr: '', spec });
    await service.start({ id: 'a1', execId: 'e1' });
    await service.create(createInput('b1'));
    const waits = [service.wait({ id: 'a1', execId: '' }), service.wait({ id: 'a1', execId: 'e1' })];
    const published = events.published.length;
    const writes = journal.writes;

    expect(await service.forget('a1')).toBe(true);
    const task = runtime.task('a1');
    expect([task.forgotten, task.execs.get('e1')?.forgotten]).toEqual([true, true]);
    const why = 'was removed by containerd after its pod keeper died';
    await expect(waits[0]).rejects.toThrow(`task "a1" ${why}`);
    await expect(waits[1]).rejects.toThrow(`exec "e1" of task "a1" ${why}`);
    expect(() => service.state({ id: 'a1', execId: '' })).toThrow(NotFoundError);
    expect(service.taskCount).toBe(1);
    // The container is killed after the forget: its exit (if a runtime still saw it) goes nowhere.
    task.exit({ code: null, signal: 9 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(events.published.length).toBe(published);
    // Its record is `delete`'s to remove with the directory: nothing is written here from now on.
    expect(journal.writes).toBe(writes);
    expect(host.exitRequests).toBe(0);

    // The id is free again: containerd may start a task of the same container.
    await service.create(createInput('a1'));
    expect(service.state({ id: 'a1', execId: '' }).status).toBe('created');
  });

  it('forgets nothing for an id it does not hold, and asks to leave once its last task is forgotten', async () => {
    const { service, host, events } = shimWithFakes();
    expect(await service.forget('nobody')).toBe(false);
    await service.create(createInput('c1'));
    await service.start({ id: 'c1', execId: '' });
    expect(await service.forget('c1')).toBe(true);
    expect(await service.forget('c1')).toBe(false);
    expect(host.exitRequests).toBe(1);
    expect(events.topics('c1')).toEqual(['/tasks/create', '/tasks/start']);
  });

  it('publishes no OOM of a forgotten task (its cgroup goes with its container)', async () => {
    const { service, runtime, events } = shimWithFakes();
    await service.create(createInput('d1'));
    await service.forget('d1');
    runtime.reportOom('d1');
    expect(events.topics('d1')).toEqual(['/tasks/create']);
  });
});
