import 'reflect-metadata';
import { SandboxService } from '../../../../src/application/shim/sandbox/sandbox-service';
import { FakeClock } from '../../../../src/adapters/fakes/shared/fake-clock';
import { FakeSandboxProcesses } from '../../../../src/adapters/fakes/shim/fake-sandbox-processes';
import { FakeSandboxJournal } from '../../../../src/adapters/fakes/shim/fake-sandbox-journal';
import { FakeSandboxFiles } from '../../../../src/adapters/fakes/shim/fake-sandbox-files';
import { NO_POD_FIELDS, PodSandboxFields } from '../../../../src/domain/shim/sandbox';

/** The Sandbox API's use cases (docs/sandbox-api.md) over fake sandbox processes and a fake clock. */
describe('SandboxService', () => {
  let clock: FakeClock;
  let processes: FakeSandboxProcesses;
  let service: SandboxService;
  let journal: FakeSandboxJournal;
  let files: FakeSandboxFiles;
  const PLATFORM = { os: 'linux', architecture: 'amd64' };
  const create = (id = 'pod1', pod: Partial<PodSandboxFields> = {}, netnsPath = '/run/netns/cni-1') =>
    service.create({ id, bundle: `/run/containerd/sandboxes/${id}`, netnsPath, pod: { ...NO_POD_FIELDS, ...pod } });

  beforeEach(() => {
    clock = new FakeClock();
    processes = new FakeSandboxProcesses();
    journal = new FakeSandboxJournal();
    files = new FakeSandboxFiles();
    service = new SandboxService(processes, clock, PLATFORM, journal, files);
  });

  it('starts the sandbox process on StartSandbox, READY with its pid until it ends, then NOTREADY with the time it ended', async () => {
    create('pod1', { hostname: 'web-0', sysctls: [['net.ipv4.ip_forward', '1']] });
    expect(service.status('pod1')).toMatchObject({ id: 'pod1', pid: 0, state: 'SANDBOX_NOTREADY' });
    const started = await service.start('pod1');
    expect(started).toEqual({ pid: 4000, createdAt: clock.now() });
    expect(processes.started).toEqual([
      {
        bundle: '/run/containerd/sandboxes/pod1',
        pid: 4000,
        spec: {
          id: 'pod1',
          netns: '/run/netns/cni-1',
          hostname: 'web-0',
          ownPid: true,
          ownIpc: true,
          sysctls: [['net.ipv4.ip_forward', '1']],
        },
      },
    ]);
    expect(service.status('pod1')).toEqual({ id: 'pod1', pid: 4000, state: 'SANDBOX_READY', createdAt: clock.now() });
    const waited = service.wait('pod1');
    clock.advance(5000);
    await processes.die(4000, { code: 0, signal: null, exitedAt: new Date(clock.now().getTime() - 10) });
    expect(await waited).toEqual({ exitStatus: 0, exitedAt: new Date(clock.now().getTime() - 10) });
    expect(service.status('pod1')).toMatchObject({ state: 'SANDBOX_NOTREADY', pid: 4000 });
  });

  it("makes the pod's files at StartSandbox, before its process, and removes them at ShutdownSandbox", async () => {
    create('pod1', {
      hostname: 'web-0',
      dns: { servers: ['10.96.0.10'], searches: ['default.svc.cluster.local'], options: ['ndots:5'] },
    });
    expect(files.made.size).toBe(0);
    processes.failWith = new Error('no keeper');
    await expect(service.start('pod1')).rejects.toThrow('no keeper');
    expect(files.removed).toEqual(['pod1']); // a start that failed leaves none
    processes.failWith = undefined;
    await service.start('pod1');
    expect(files.made.get('pod1')).toEqual({
      hostname: 'web-0',
      resolvConf: 'search default.svc.cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n',
      ownShm: true,
    });
    await service.shutdown('pod1');
    expect(files.removed).toEqual(['pod1', 'pod1']);
    expect(files.made.size).toBe(0);
  });

  it('a second StartSandbox answers as the first did, and starts nothing more', async () => {
    create();
    const [first, second] = await Promise.all([service.start('pod1'), service.start('pod1')]);
    expect(second).toEqual(first);
    expect(processes.started).toHaveLength(1);
  });

  it('a failed start can be tried again; a stopped sandbox cannot be started again', async () => {
    create();
    processes.failWith = new Error('no keeper');
    await expect(service.start('pod1')).rejects.toThrow('no keeper');
    processes.failWith = undefined;
    await service.start('pod1');
    await service.stop('pod1', 0);
    await expect(service.start('pod1')).rejects.toThrow('sandbox pod1 has stopped; it cannot be started again');
  });

  it("StopSandbox with CRI's timeout of 0 kills at once; WaitSandbox says 128 + the signal", async () => {
    create();
    await service.start('pod1');
    const waited = service.wait('pod1');
    await service.stop('pod1', 0);
    expect(processes.signals).toEqual([{ pid: 4000, signal: 'SIGKILL' }]);
    expect((await waited).exitStatus).toBe(137);
  });

  it('StopSandbox with a timeout sends SIGTERM first and SIGKILL once the timeout passes', async () => {
    create();
    await service.start('pod1');
    processes.ignoreTerm = true;
    const stopped = service.stop('pod1', 2);
    // Until it sleeps out the timeout: then SIGTERM has gone.
    while (clock.pendingSleeps === 0) await Promise.resolve();
    expect(processes.signals).toEqual([{ pid: 4000, signal: 'SIGTERM' }]);
    clock.advance(2000);
    await stopped;
    expect(processes.signals).toEqual([
      { pid: 4000, signal: 'SIGTERM' },
      { pid: 4000, signal: 'SIGKILL' },
    ]);
    expect(service.status('pod1').state).toBe('SANDBOX_NOTREADY');
  });

  it('StopSandbox again, or of a sandbox never started, is done already; ShutdownSandbox forgets it and releases its process', async () => {
    create('pod1');
    create('pod2');
    await service.stop('pod2', 0);
    expect(service.status('pod2').state).toBe('SANDBOX_NOTREADY');
    expect(await service.wait('pod2')).toEqual({ exitStatus: 0, exitedAt: clock.now() });
    await service.start('pod1');
    await service.stop('pod1', 0);
    await service.stop('pod1', 0);
    expect(processes.signals).toHaveLength(1);
    await service.shutdown('pod1');
    expect(processes.released).toEqual(['pod1']);
    expect(service.status('pod1')).toEqual({ id: 'pod1', pid: 0, state: 'SANDBOX_NOTREADY' });
    expect(() => service.ping('pod1')).toThrow('sandbox pod1 not found');
    await service.shutdown('pod1'); // gone already: nothing to do
  });

  it('ShutdownSandbox of a running sandbox kills it first', async () => {
    create();
    await service.start('pod1');
    await service.shutdown('pod1');
    expect(processes.signals).toEqual([{ pid: 4000, signal: 'SIGKILL' }]);
    expect(processes.isRunning(4000)).toBe(false);
  });

  it('answers Platform, Ping and Metrics for a sandbox it has, NOT_FOUND for one it has not', () => {
    create();
    expect(service.platform('pod1')).toEqual(PLATFORM);
    expect(() => service.ping('pod1')).not.toThrow();
    expect(service.metrics('pod1')).toEqual({ id: 'pod1', at: clock.now() });
    for (const call of [() => service.platform('x'), () => service.ping('x'), () => service.metrics('x')])
      expect(call).toThrow(expect.objectContaining({ kind: 'NotFound' }));
  });

  it('refuses a second CreateSandbox of an id, a bad id, and what sandboxSpecOf refuses', () => {
    create();
    expect(() => create()).toThrow(expect.objectContaining({ kind: 'AlreadyExists' }));
    expect(() => create('bad/id')).toThrow(expect.objectContaining({ kind: 'InvalidArgument' }));
    expect(() => create('pod2', { userns: 'pod' })).toThrow(expect.objectContaining({ kind: 'FailedPrecondition' }));
    expect(() => create('pod3', {}, '')).toThrow(expect.objectContaining({ kind: 'InvalidArgument' }));
  });

  it("forgets a sandbox whose keeper died (containerd's delete, no ShutdownSandbox): nothing of it is held", async () => {
    create('pod1');
    await service.start('pod1');
    const waited = service.wait('pod1');
    expect(service.count).toBe(1);
    expect(processes.watched).toBe(1);
    expect(service.forget('pod1')).toBe(true);
    expect(await waited).toEqual({ exitStatus: 255, exitedAt: clock.now() });
    expect([service.count, processes.watched]).toEqual([0, 0]);
    expect(processes.dropped).toEqual(['pod1']);
    expect(service.pidOf('pod1')).toBeUndefined();
    expect(service.status('pod1').state).toBe('SANDBOX_NOTREADY');
    expect(service.forget('pod1')).toBe(false);
  });

  describe('a crash or a hand-over of the serving process', () => {
    /** The next serving process: a new service over the same journal, taking its records over. */
    const successor = () => {
      const next = new SandboxService(processes, clock, PLATFORM, journal, files);
      return { next, problems: next.recover() };
    };

    it('keeps a record of each started sandbox, with its end once seen, until ShutdownSandbox', async () => {
      create('pod1', { hostname: 'web-0' });
      expect(journal.records.size).toBe(0); // created only: nothing to take over
      await service.start('pod1');
      expect(journal.records.get('pod1')).toEqual({
        spec: expect.objectContaining({ id: 'pod1', hostname: 'web-0' }),
        bundle: '/run/containerd/sandboxes/pod1',
        createdAt: clock.now(),
        pid: 4000,
      });
      await service.stop('pod1', 0);
      expect(journal.records.get('pod1')?.exit).toEqual({ exitStatus: 137, exitedAt: clock.now() });
      await service.shutdown('pod1');
      expect(journal.records.size).toBe(0);
    });

    it('the successor answers for a running sandbox as before, watches its process, and stops it', async () => {
      create('pod1');
      const { createdAt } = await service.start('pod1');
      clock.advance(60_000);
      const { next, problems } = successor();
      expect(problems).toEqual([]);
      expect(processes.adopted).toEqual([
        expect.objectContaining({ pid: 4000, bundle: '/run/containerd/sandboxes/pod1' }),
      ]);
      expect(next.status('pod1')).toEqual({ id: 'pod1', pid: 4000, state: 'SANDBOX_READY', createdAt });
      const waited = next.wait('pod1');
      await next.stop('pod1', 0);
      expect(await waited).toEqual({ exitStatus: 137, exitedAt: clock.now() });
      await next.shutdown('pod1');
      expect(processes.released).toEqual(['pod1']);
    });

    it('a sandbox that ended before the crash stays ended, watched by nobody', async () => {
      create('pod1');
      await service.start('pod1');
      await processes.die(4000, { code: 2, signal: null });
      const { next } = successor();
      expect(processes.adopted).toEqual([]);
      expect(next.status('pod1')).toMatchObject({ state: 'SANDBOX_NOTREADY', pid: 4000 });
      expect(await next.wait('pod1')).toEqual({ exitStatus: 2, exitedAt: clock.now() });
    });

    it('says what it could not take over, and serves the rest', async () => {
      create('pod1');
      create('pod2');
      await service.start('pod1');
      await service.start('pod2');
      journal.problems = ['skipped /x/sandbox.json: not a JSON object'];
      const adopt = processes.adopt.bind(processes);
      processes.adopt = (spec, bundle, pid, exited) => {
        if (spec.id === 'pod2') throw new Error('its bundle names no pod keeper');
        adopt(spec, bundle, pid, exited);
      };
      const { next, problems } = successor();
      expect(problems).toEqual([
        'skipped /x/sandbox.json: not a JSON object',
        'sandbox pod2 not taken over: its bundle names no pod keeper',
      ]);
      expect(next.status('pod1').state).toBe('SANDBOX_READY');
      expect(next.status('pod2')).toEqual({ id: 'pod2', pid: 0, state: 'SANDBOX_NOTREADY' });
    });
  });
});
