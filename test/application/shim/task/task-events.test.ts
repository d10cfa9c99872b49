import { CreateTaskInput } from '../../../../src/application/shim/task/task-messages';
import { BundleFactory } from '../../../support/bundles';
import { shimWithFakes } from '../../../support/test-container';

const bundles = new BundleFactory();
afterAll(() => bundles.cleanup());

function createInput(id: string, args: string[]): CreateTaskInput {
  return {
    id,
    bundle: bundles.make(args),
    rootfs: [{ type: 'overlay', source: 'overlay', target: '', options: ['lowerdir=/l'] }],
    checkpoint: '',
    parentCheckpoint: '',
    stdin: '',
    stdout: '/f/out',
    stderr: '/f/err',
    terminal: false,
  };
}

const init = (id: string) => ({ id, execId: '' });

describe('TaskService events', () => {
  it('publishes create, start, exit and delete of a task in that order, with what containerd needs', async () => {
    const { service, events, clock } = shimWithFakes();
    const { pid } = await service.create(createInput('t1', ['sh', '-c', 'exit 7']));
    await service.start(init('t1'));
    await service.wait(init('t1'));
    await service.delete(init('t1'));
    expect(events.published).toEqual([
      {
        topic: '/tasks/create',
        id: 't1',
        bundle: expect.any(String),
        rootfs: [{ type: 'overlay', source: 'overlay', target: '', options: ['lowerdir=/l'] }],
        stdio: { stdin: '', stdout: '/f/out', stderr: '/f/err', terminal: false },
        checkpoint: '',
        pid,
      },
      { topic: '/tasks/start', id: 't1', pid },
      { topic: '/tasks/exit', id: 't1', execId: '', pid, exitStatus: 7, exitedAt: clock.current },
      { topic: '/tasks/delete', id: 't1', pid, exitStatus: 7, exitedAt: clock.current },
    ]);
  });

  it('never publishes an exit before its start, even when the process exits before Start returns', async () => {
    const { service, events, runtime } = shimWithFakes();
    await service.create(createInput('t2', ['sleep', '100']));
    runtime.task('t2').exitDuringStart = { code: 3, signal: null };
    await service.start(init('t2'));
    expect(events.topics('t2')).toEqual(['/tasks/create', '/tasks/start', '/tasks/exit']);
  });

  it('publishes the exit of a task deleted before it started, then its delete', async () => {
    const { service, events } = shimWithFakes();
    await service.create(createInput('t3', ['sleep', '100']));
    await service.delete(init('t3'));
    expect(events.topics('t3')).toEqual(['/tasks/create', '/tasks/exit', '/tasks/delete']);
    expect(events.published.find((e) => e.topic === '/tasks/exit')).toMatchObject({ exitStatus: 137 });
  });

  it('publishes exec-added, exec-started and the exec exit (its exec id), and no delete for an exec', async () => {
    const { service, events } = shimWithFakes();
    await service.create(createInput('t4', ['sleep', '100']));
    await service.start(init('t4'));
    const spec = {
      typeUrl: 'types.containerd.io/opencontainers/runtime-spec/1/Process',
      value: new TextEncoder().encode(JSON.stringify({ args: ['sh', '-c', 'exit 2'], cwd: '/' })),
    };
    await service.exec({ id: 't4', execId: 'e1', terminal: false, stdin: '', stdout: '', stderr: '', spec });
    const { pid } = await service.start({ id: 't4', execId: 'e1' });
    await service.wait({ id: 't4', execId: 'e1' });
    await service.delete({ id: 't4', execId: 'e1' });
    expect(events.published.slice(2)).toEqual([
      { topic: '/tasks/exec-added', id: 't4', execId: 'e1' },
      { topic: '/tasks/exec-started', id: 't4', execId: 'e1', pid },
      { topic: '/tasks/exit', id: 't4', execId: 'e1', pid, exitStatus: 2, exitedAt: expect.any(Date) },
    ]);
  });

  it('publishes oom when the runtime reports an out-of-memory kill in the task', async () => {
    const { service, events, runtime } = shimWithFakes();
    await service.create(createInput('t6', ['sleep', '100']));
    await service.start(init('t6'));
    runtime.reportOom('t6');
    expect(events.published.at(-1)).toEqual({ topic: '/tasks/oom', id: 't6' });
  });

  it('publishes paused and resumed, and one exit however often the task is killed', async () => {
    const { service, events } = shimWithFakes();
    await service.create(createInput('t5', ['sleep', '100']));
    await service.start(init('t5'));
    await service.pause('t5');
    await service.resume('t5');
    await service.kill({ id: 't5', execId: '', signal: 9, all: false });
    await service.wait(init('t5'));
    await service.kill({ id: 't5', execId: '', signal: 9, all: false }).catch(() => undefined);
    await service.delete(init('t5'));
    expect(events.topics('t5')).toEqual([
      '/tasks/create',
      '/tasks/start',
      '/tasks/paused',
      '/tasks/resumed',
      '/tasks/exit',
      '/tasks/delete',
    ]);
  });
});
