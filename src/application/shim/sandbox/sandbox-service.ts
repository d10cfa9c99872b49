import { inject, injectable } from 'inversify';
import { AlreadyExistsError, FailedPreconditionError, NotFoundError } from '../../../domain/shared/errors';
import type { ProcessExit } from '../../../domain/shim/exit-status';
import { sandboxExitStatus, sandboxSpecOf, type SandboxSpec } from '../../../domain/shim/sandbox';
import { assertValidId } from '../../../domain/shim/task-id';
import { CLOCK, type Clock } from '../../shared/ports/clock.port';
import { SANDBOX_JOURNAL, type SandboxJournal, type SandboxRecord } from '../ports/sandbox-journal.port';
import { SANDBOX_PROCESSES, type SandboxProcesses } from '../ports/sandbox-processes.port';
import { SANDBOX_FILES, type SandboxFiles } from '../ports/sandbox-files.port';
import type { PodSandboxes } from '../ports/pod-sandboxes.port';
import { podFilesOf, type PodFiles } from '../../../domain/shim/pod-files';
import type {
  CreateSandboxInput,
  SandboxExitView,
  SandboxMetricsView,
  SandboxPlatform,
  SandboxStarted,
  SandboxStatusView,
} from './sandbox-messages';

/** The platform the pods' containers run on (Platform's answer), bound by the composition root. */
export const SANDBOX_PLATFORM = Symbol('SandboxPlatform');

/** How long StopSandbox waits for the sandbox process after its SIGKILL: a process the kernel cannot kill is a fault to say. */
const KILLED_WAIT_MS = 10_000;

/** One sandbox, from CreateSandbox to ShutdownSandbox. */
interface Sandbox {
  readonly spec: SandboxSpec;
  /** What StartSandbox makes of the pod's files; undefined for a sandbox taken over (made already). */
  readonly files?: PodFiles;
  readonly bundle: string;
  readonly createdAt: Date;
  pid: number;
  starting?: Promise<number>;
  exit?: SandboxExitView;
  readonly ended: Promise<void>;
  end(exit: SandboxExitView): void;
}

/**
 * containerd.runtime.sandbox.v1.Sandbox (docs/sandbox-api.md), one method per RPC: a pod with
 * no pause container, whose namespaces its sandbox process holds. The pod's containers are
 * tasks of the task service as any are; they join the namespaces through the pid this service
 * reports (CRI's WithPodNamespaces reads SandboxStatus.pid).
 */
@injectable()
export class SandboxService implements PodSandboxes {
  private readonly sandboxes = new Map<string, Sandbox>();

  constructor(
    @inject(SANDBOX_PROCESSES) private readonly processes: SandboxProcesses,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(SANDBOX_PLATFORM) private readonly platformOfPods: SandboxPlatform,
    @inject(SANDBOX_JOURNAL) private readonly journal: SandboxJournal,
    @inject(SANDBOX_FILES) private readonly files: SandboxFiles,
  ) {}

  create(input: CreateSandboxInput): void {
    assertValidId(input.id, 'sandbox_id');
    if (this.sandboxes.has(input.id))
      throw new AlreadyExistsError(`sandbox ${input.id} already exists`, 'SANDBOX.EXISTS');
    const spec = sandboxSpecOf(input.id, input.netnsPath, input.pod);
    const files = podFilesOf(input.id, input.pod);
    this.sandboxes.set(input.id, newSandbox(spec, input.bundle, this.clock.now(), files));
  }

  /**
   * Takes over the sandboxes a previous serving process of the namespace started (a crash, a
   * hand-over: docs/sandbox-api.md), before any call is served: their processes' exits come from
   * their keepers from now on. Returns what could not be taken over, one line each.
   */
  recover(): string[] {
    const { records, problems } = this.journal.readAll();
    for (const record of records) {
      const { spec } = record;
      if (this.sandboxes.has(spec.id)) continue;
      const sandbox = newSandbox(spec, record.bundle, record.createdAt);
      sandbox.pid = record.pid;
      try {
        if (record.exit !== undefined) sandbox.end(record.exit);
        else this.processes.adopt(spec, record.bundle, record.pid, (exit) => this.ended(sandbox, exit));
        this.sandboxes.set(spec.id, sandbox);
      } catch (err) {
        problems.push(`sandbox ${spec.id} not taken over: ${(err as Error).message}`);
      }
    }
    return problems;
  }

  /** Starts the sandbox process; a second StartSandbox of a started sandbox answers as the first did. */
  async start(id: string): Promise<SandboxStarted> {
    const sandbox = this.get(id);
    if (sandbox.exit !== undefined)
      throw new FailedPreconditionError(`sandbox ${id} has stopped; it cannot be started again`, 'SANDBOX.STOPPED');
    sandbox.starting ??= this.startProcess(sandbox);
    try {
      sandbox.pid = await sandbox.starting;
    } catch (err) {
      sandbox.starting = undefined;
      throw err;
    }
    this.journal.save(recordOf(sandbox));
    return { pid: sandbox.pid, createdAt: sandbox.createdAt };
  }

  /** The pod's files first (its containers mount them), then the process that holds its namespaces. */
  private async startProcess(sandbox: Sandbox): Promise<number> {
    const { spec, bundle } = sandbox;
    try {
      if (sandbox.files !== undefined) this.files.make(spec.id, bundle, sandbox.files);
      return await this.processes.start(spec, bundle, (exit) => this.ended(sandbox, exit));
    } catch (err) {
      this.files.remove(spec.id, bundle);
      throw err;
    }
  }

  platform(id: string): SandboxPlatform {
    this.get(id);
    return this.platformOfPods;
  }

  /**
   * Ends the sandbox process: SIGKILL at once for a timeout of 0 (CRI's), else SIGTERM and
   * SIGKILL once the timeout passes; resolves when it has ended. A sandbox that has ended, or
   * never started, is stopped already (RemovePodSandbox stops again).
   */
  async stop(id: string, timeoutSecs: number): Promise<void> {
    const sandbox = this.get(id);
    if (sandbox.starting !== undefined) await sandbox.starting.catch(() => undefined);
    if (sandbox.exit !== undefined) return;
    if (sandbox.pid === 0) return sandbox.end({ exitStatus: 0, exitedAt: this.clock.now() });
    if (timeoutSecs > 0) {
      this.processes.signal(sandbox.pid, 'SIGTERM');
      await Promise.race([sandbox.ended, this.clock.sleep(timeoutSecs * 1000)]);
      if (sandbox.exit !== undefined) return;
    }
    this.processes.signal(sandbox.pid, 'SIGKILL');
    await Promise.race([sandbox.ended, this.clock.sleep(KILLED_WAIT_MS)]);
    if (sandbox.exit === undefined)
      throw new FailedPreconditionError(
        `sandbox ${id}: its process ${sandbox.pid} did not end within ${KILLED_WAIT_MS} ms of SIGKILL`,
        'SANDBOX.STOP',
      );
  }

  /** Resolves when the sandbox process has ended (WaitSandbox is called once per sandbox, for its life). */
  async wait(id: string): Promise<SandboxExitView> {
    const sandbox = this.get(id);
    await sandbox.ended;
    return sandbox.exit as SandboxExitView;
  }

  /**
   * SANDBOX_READY while its process runs. A sandbox this process does not know is NOTREADY, not
   * NOT_FOUND: CRI takes the state as it comes and keeps the pod, where an error fails the call.
   */
  status(id: string): SandboxStatusView {
    const sandbox = this.sandboxes.get(id);
    if (sandbox === undefined) return { id, pid: 0, state: 'SANDBOX_NOTREADY' };
    const ready = sandbox.pid !== 0 && sandbox.exit === undefined;
    return {
      id,
      pid: sandbox.pid,
      state: ready ? 'SANDBOX_READY' : 'SANDBOX_NOTREADY',
      createdAt: sandbox.createdAt,
      ...(sandbox.exit !== undefined && { exitedAt: sandbox.exit.exitedAt }),
    };
  }

  pidOf(id: string): number | undefined {
    const sandbox = this.sandboxes.get(id);
    return sandbox !== undefined && sandbox.pid !== 0 && sandbox.exit === undefined ? sandbox.pid : undefined;
  }

  get count(): number {
    return this.sandboxes.size;
  }

  ping(id: string): void {
    this.get(id);
  }

  /** The sandbox ends (its process killed if it runs) and is forgotten; containerd runs `delete` next. */
  async shutdown(id: string): Promise<void> {
    const sandbox = this.sandboxes.get(id);
    if (sandbox === undefined) return;
    await this.stop(id, 0);
    this.sandboxes.delete(id);
    this.journal.remove(recordOf(sandbox));
    this.files.remove(id, sandbox.bundle);
    await this.processes.release(sandbox.spec, sandbox.bundle);
  }

  /**
   * Lets a sandbox go without a ShutdownSandbox: its keeper died and containerd's `delete` ended
   * its process and removed its files (docs/keeper-protocol.md, "`delete`"), so nobody sends one.
   * True when it was this process's.
   */
  forget(id: string): boolean {
    const sandbox = this.sandboxes.get(id);
    if (sandbox === undefined) return false;
    this.sandboxes.delete(id);
    this.processes.drop(sandbox.spec, sandbox.bundle);
    sandbox.end({ exitStatus: 255, exitedAt: this.clock.now() });
    return true;
  }

  /** The sandbox's own metrics: none yet beyond its id and the time (CRI reads the pod's cgroup itself). */
  metrics(id: string): SandboxMetricsView {
    this.get(id);
    return { id, at: this.clock.now() };
  }

  /** Its end, recorded before the keeper is acked (the exit is resent to a successor until then). */
  private async ended(sandbox: Sandbox, exit: ProcessExit): Promise<void> {
    sandbox.end({ exitStatus: sandboxExitStatus(exit), exitedAt: exit.exitedAt ?? this.clock.now() });
    if (this.sandboxes.get(sandbox.spec.id) === sandbox) this.journal.save(recordOf(sandbox));
  }

  private get(id: string): Sandbox {
    const sandbox = this.sandboxes.get(id);
    if (sandbox === undefined) throw new NotFoundError(`sandbox ${id} not found`, 'SANDBOX.NOT_FOUND');
    return sandbox;
  }
}

function newSandbox(spec: SandboxSpec, bundle: string, createdAt: Date, files?: PodFiles): Sandbox {
  let end: (exit: SandboxExitView) => void = () => undefined;
  const ended = new Promise<void>((resolve) => {
    end = (exit) => {
      if (sandbox.exit !== undefined) return;
      sandbox.exit = exit;
      resolve();
    };
  });
  const sandbox: Sandbox = {
    spec,
    ...(files !== undefined && { files }),
    bundle,
    createdAt,
    pid: 0,
    ended,
    end: (exit) => end(exit),
  };
  return sandbox;
}

function recordOf(sandbox: Sandbox): SandboxRecord {
  const { spec, bundle, createdAt, pid, exit } = sandbox;
  return { spec, bundle, createdAt, pid, ...(exit !== undefined && { exit }) };
}
