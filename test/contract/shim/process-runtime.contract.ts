import { InvalidArgumentError, NotFoundError } from '../../../src/domain/shared/errors';
import { ProcessExit } from '../../../src/domain/shim/exit-status';
import {
  CreateSpec,
  ExecSpec,
  ExitListener,
  ProcessHandle,
  ProcessRuntime,
  TaskHandle,
} from '../../../src/application/shim/ports/process-runtime.port';
import { BundleFactory } from '../../support/bundles';

const NO_STDIO = { stdin: '', stdout: '', stderr: '', terminal: false };

/** Collects exits reported through an ExitListener. */
class ExitProbe {
  readonly exits: ProcessExit[] = [];
  private waiters: Array<() => void> = [];
  readonly listener: ExitListener = (exit) => {
    this.exits.push(exit);
    for (const wake of this.waiters.splice(0)) wake();
  };

  async next(): Promise<ProcessExit> {
    if (this.exits.length === 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
    return this.exits[0];
  }
}

/**
 * What every ProcessRuntime must do, run against the fake and the real adapters
 * (containerd's SnapshotterSuite pattern): a fake that passes this behaves, for
 * the application tests, like the real thing.
 */
/** Where the contract's bundles come from: host-path bundles by default, a rootfs for runc. */
export interface ContractBundles {
  make(args: string[]): string;
  cleanup(): void;
}

function execSpec(execId: string, args: string[]): ExecSpec {
  const process = { args, env: ['PATH=/usr/bin:/bin'], cwd: '/', terminal: false };
  return { execId, stdio: NO_STDIO, process, processJson: process };
}

export function processRuntimeContract(
  name: string,
  makeRuntime: () => ProcessRuntime,
  makeBundles: () => ContractBundles = () => new BundleFactory(),
): void {
  describe(`ProcessRuntime contract: ${name}`, () => {
    let bundles: ContractBundles;
    let runtime: ProcessRuntime;
    const tasks: TaskHandle[] = [];
    let counter = 0;

    beforeAll(() => {
      runtime = makeRuntime();
      bundles = makeBundles();
    });
    afterEach(async () => {
      for (const task of tasks.splice(0)) {
        await task.kill(9).catch(() => undefined);
        await task.delete().catch(() => undefined);
      }
    });
    afterAll(() => {
      bundles.cleanup();
    });

    /**
     * A task, with `execs` standing for the shim's registry of its execs (TaskWatch.execs):
     * a case that makes an exec adds it, as TaskService does.
     */
    async function create(
      args: string[],
      probe = new ExitProbe(),
    ): Promise<{ task: TaskHandle; probe: ExitProbe; execs: ProcessHandle[] }> {
      const spec: CreateSpec = {
        id: `c${counter++}`,
        bundle: bundles.make(args),
        stdio: NO_STDIO,
        rootfs: [],
        checkpoint: '',
      };
      const execs: ProcessHandle[] = [];
      const task = await runtime.create(spec, { onExit: probe.listener, execs: () => execs });
      tasks.push(task);
      return { task, probe, execs };
    }

    it('creates a process with a pid that does not change at start', async () => {
      const { task } = await create(['true']);
      const pid = task.pid;
      expect(pid).toBeGreaterThan(0);
      expect(await task.start()).toBe(pid);
    });

    it('runs nothing before start: a created process reports no exit', async () => {
      const { task, probe } = await create(['true']);
      const pids = await task.pids();
      expect(pids.map((p) => p.pid)).toContain(task.pid);
      expect(probe.exits).toEqual([]);
    });

    it('reports the exit code once the program ends', async () => {
      const { task, probe } = await create(['sh', '-c', 'exit 7']);
      await task.start();
      expect(await probe.next()).toEqual({ code: 7, signal: null });
    });

    it('reports the signal that ended a process', async () => {
      const { task, probe } = await create(['sleep', '100']);
      await task.start();
      await task.kill(9);
      expect(await probe.next()).toEqual({ code: null, signal: 9 });
    });

    it('answers Stats after the exit, until Delete (containerd 2.3 asks after an exit 137), with no process left', async () => {
      const { task, probe } = await create(['true']);
      await task.start();
      await probe.next();
      expect((await task.stats()).pidsCurrent).toBe(0);
    });

    it('answers NotFound to a kill after the exit', async () => {
      const { task, probe } = await create(['true']);
      await task.start();
      await probe.next();
      await expect(task.kill(15)).rejects.toThrow(NotFoundError);
    });

    it('kills a created process at delete and reports its exit', async () => {
      const { task, probe } = await create(['sleep', '100']);
      await task.delete();
      expect(await probe.next()).toEqual({ code: null, signal: 9 });
    });

    it('prepares an exec with pid 0 and runs it at start', async () => {
      const { task } = await create(['sleep', '100']);
      await task.start();
      const probe = new ExitProbe();
      const exec = await task.exec(execSpec('e1', ['sh', '-c', 'exit 3']), probe.listener);
      expect(exec.pid).toBe(0);
      expect(await exec.start()).toBeGreaterThan(0);
      expect(await probe.next()).toEqual({ code: 3, signal: null });
      await exec.delete();
    });

    it('lists the init and started execs among the pids', async () => {
      const { task, execs } = await create(['sleep', '100']);
      await task.start();
      const exec = await task.exec(execSpec('e1', ['sleep', '100']), () => undefined);
      execs.push(exec);
      await exec.start();
      const pids = (await task.pids()).map((p) => p.pid);
      expect(pids).toEqual(expect.arrayContaining([task.pid, exec.pid]));
      await exec.kill(9);
    });

    it('kills every process of the task with killAll', async () => {
      const { task, probe } = await create(['sleep', '100']);
      await task.start();
      await task.killAll(9);
      expect(await probe.next()).toEqual({ code: null, signal: 9 });
    });

    it('holds a signal while paused and delivers it after resume', async () => {
      const { task, probe } = await create(['sleep', '100']);
      await task.start();
      await task.pause();
      await task.kill(15);
      await new Promise((r) => setTimeout(r, 100));
      expect(probe.exits).toEqual([]);
      await task.resume();
      expect(await probe.next()).toEqual({ code: null, signal: 15 });
    });

    it('refuses a bundle whose program does not exist, at create', async () => {
      await expect(create(['no-such-program-anywhere'])).rejects.toThrow(InvalidArgumentError);
    });

    it('refuses a bundle path that does not exist', async () => {
      const spec: CreateSpec = {
        id: 'missing',
        bundle: '/no/such/bundle',
        stdio: NO_STDIO,
        rootfs: [],
        checkpoint: '',
      };
      await expect(runtime.create(spec, { onExit: () => undefined, execs: () => [] })).rejects.toThrow(
        InvalidArgumentError,
      );
    });
  });
}
