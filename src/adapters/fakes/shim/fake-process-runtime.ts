import {
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  UnimplementedError,
} from '../../../domain/shared/errors';
import { ProcessExit } from '../../../domain/shim/exit-status';
import { OciProcess } from '../../../domain/shim/oci-spec';
import {
  AdoptedProcess,
  AdoptSpec,
  CreateSpec,
  ExecSpec,
  ExitListener,
  LiveStatus,
  ProcessHandle,
  ProcessPid,
  ProcessRuntime,
  TaskHandle,
  TaskWatch,
} from '../../../application/shim/ports/process-runtime.port';
import { TaskStats } from '../../../domain/shim/task-stats';
import { readBundleSpec } from '../../shim/outbound/process-runtime/bundle';

const SIGSTOP = 19;
const SIGCONT = 18;
const KNOWN_PROGRAMS = new Set(['true', 'false', 'sleep', 'sh', 'cat']);

/** How a fake program behaves once started: exit at once with a code, or run until signalled. */
function behaviour(args: readonly string[]): ProcessExit | 'runs' {
  const program = args[0].split('/').pop() as string;
  if (program === 'true') return { code: 0, signal: null };
  if (program === 'false') return { code: 1, signal: null };
  const shExit = program === 'sh' && args[1] === '-c' ? /^exit (\d+)$/.exec(args[2] ?? '') : null;
  if (shExit !== null) return { code: Number(shExit[1]), signal: null };
  return 'runs';
}

let nextPid = 100_000;

/** A scriptable process: records what was asked of it, exits like a host process would. */
export class FakeProcess implements ProcessHandle {
  pid = 0;
  started = false;
  stopped = false;
  stdinClosed = false;
  deleted = false;
  forgotten = false;
  readonly signals: number[] = [];
  readonly resizes: Array<[number, number]> = [];
  private exitReported = false;
  private readonly pending: number[] = [];
  /** Set to make the next start fail (once). */
  failNextStartWith: Error | undefined;
  /** Set to report an exit before `start` resolves (exits can race replies). */
  exitDuringStart: ProcessExit | undefined;

  constructor(
    readonly args: readonly string[],
    readonly terminal: boolean,
    private readonly onExit: ExitListener,
  ) {}

  get hasExited(): boolean {
    return this.exitReported;
  }

  async start(): Promise<number> {
    if (this.failNextStartWith !== undefined) {
      const err = this.failNextStartWith;
      this.failNextStartWith = undefined;
      throw err;
    }
    if (this.pid === 0) this.pid = nextPid++;
    this.started = true;
    if (this.exitDuringStart !== undefined) this.exit(this.exitDuringStart);
    const outcome = behaviour(this.args);
    if (outcome !== 'runs') setImmediate(() => this.exit(outcome));
    return this.pid;
  }

  async kill(signal: number): Promise<void> {
    if (this.exitReported) throw new NotFoundError('process already finished', 'PROCESS.ALREADY_FINISHED');
    this.signals.push(signal);
    this.deliver(signal);
  }

  /**
   * What the kernel does with `signal` for a process without handlers: SIGKILL ends
   * it even when stopped; other signals to a stopped process stay pending until SIGCONT.
   */
  deliver(signal: number): void {
    if (signal === 0) return;
    if (signal === SIGSTOP) {
      this.stopped = true;
    } else if (signal === SIGCONT) {
      this.stopped = false;
      for (const pending of this.pending.splice(0)) this.deliver(pending);
    } else if (this.stopped && signal !== 9) {
      this.pending.push(signal);
    } else {
      setImmediate(() => this.exit({ code: null, signal }));
    }
  }

  async resizePty(width: number, height: number): Promise<void> {
    if (!this.terminal) throw new FailedPreconditionError('no terminal to resize', 'PTY.NONE');
    this.resizes.push([width, height]);
  }

  async closeStdin(): Promise<void> {
    this.stdinClosed = true;
  }

  async delete(): Promise<void> {
    if (this.pid !== 0 && !this.started && !this.exitReported) this.exit({ code: null, signal: 9 });
    this.deleted = true;
  }

  /** As a runtime served through pod keepers: what it holds goes, and no exit is reported from now on. */
  forget(): void {
    this.forgotten = true;
  }

  /** Reports an exit (test hook, or the program's own end): the first only, none once forgotten; resolves once the shim recorded it. */
  async exit(exit: ProcessExit): Promise<void> {
    if (this.exitReported || this.forgotten) return;
    this.exitReported = true;
    await this.onExit(exit);
  }
}

/** What the real runtimes report for an exit they could not read (a process that is not their child). */
export const UNKNOWN_EXIT: ProcessExit = { code: 255, signal: null };

/** A fake process taken over by a new runtime: running, or reported exited (status unknown) on the next turn. */
function adopted<P extends FakeProcess>(process: P, adoptee: AdoptedProcess, gone: boolean): P {
  process.pid = adoptee.pid;
  process.started = true;
  if (gone) setImmediate(() => process.exit(UNKNOWN_EXIT));
  return process;
}

export class FakeTask extends FakeProcess implements TaskHandle {
  readonly execs = new Map<string, FakeProcess>();
  /** Set by the runtime that adopted this task: whether a pid exited while no server ran. */
  goneMeanwhile: (pid: number) => boolean = () => false;
  paused = false;
  /** Set by the runtime that adopted this task: what it saw of a live init (TaskHandle.observedStatus). */
  observedStatus: LiveStatus | undefined;
  /** Set by the runtime that adopted this task: execs made while no record said so, by exec id. */
  madeMeanwhile = new Map<string, AdoptedProcess>();
  readonly updates: Array<Record<string, unknown>> = [];
  readonly checkpoints: string[] = [];

  async exec(spec: ExecSpec, onExit: ExitListener): Promise<ProcessHandle> {
    assertKnownProgram(spec.process, spec.execId);
    const exec = new FakeProcess(spec.process.args, spec.stdio.terminal, onExit);
    this.execs.set(spec.execId, exec);
    return exec;
  }

  startedExec(execId: string): AdoptedProcess | undefined {
    return this.madeMeanwhile.get(execId);
  }
  /** The execs whose Start in flight at the crash was cancelled (cancelStart), in order. */
  readonly cancelledStarts: string[] = [];

  cancelStart(execId: string): void {
    this.cancelledStarts.push(execId);
  }

  adoptExec(spec: ExecSpec, process: AdoptedProcess, onExit: ExitListener): ProcessHandle {
    const exec = adopted(
      new FakeProcess(spec.process.args, spec.stdio.terminal, onExit),
      process,
      this.goneMeanwhile(process.pid),
    );
    this.execs.set(spec.execId, exec);
    return exec;
  }

  async killAll(signal: number): Promise<void> {
    for (const p of this.live()) p.deliver(signal);
  }

  async pause(): Promise<void> {
    this.paused = true;
    for (const p of this.live()) p.deliver(SIGSTOP);
  }

  async resume(): Promise<void> {
    this.paused = false;
    for (const p of this.live()) p.deliver(SIGCONT);
  }

  async pids(): Promise<ProcessPid[]> {
    return this.live().map((p) => ({ pid: p.pid }));
  }

  async stats(): Promise<TaskStats> {
    const pids = this.live().length;
    return {
      cpuUsageNs: 0,
      cpuUserNs: 0,
      cpuSystemNs: 0,
      memoryRssBytes: 0,
      memoryUsageBytes: 0,
      memoryLimitBytes: 0,
      pidsCurrent: pids,
      pidsLimit: 0,
    };
  }

  async update(resources: Record<string, unknown>): Promise<void> {
    this.updates.push(resources);
  }

  async checkpoint(path: string): Promise<void> {
    this.checkpoints.push(path);
  }

  private live(): FakeProcess[] {
    return [this, ...this.execs.values()].filter((p) => p.pid !== 0 && !p.hasExited);
  }
}

function assertKnownProgram(process: OciProcess, who: string): void {
  const program = process.args[0].split('/').pop() as string;
  if (!KNOWN_PROGRAMS.has(program)) {
    throw new InvalidArgumentError(`${who}: executable ${JSON.stringify(process.args[0])} not found`, 'EXEC.NOT_FOUND');
  }
}

/**
 * An in-memory ProcessRuntime. It reads real bundles (so bundle errors match the
 * real runtimes) and runs nothing: programs behave as `behaviour` says.
 */
export class FakeProcessRuntime implements ProcessRuntime {
  readonly name = 'fake';
  readonly tasks = new Map<string, FakeTask>();
  failNextCreateWith: Error | undefined;

  /** Each task's OOM listener, as the runtime was given it: reportOom(id) calls it. */
  private readonly oomListeners = new Map<string, () => void>();

  async create(spec: CreateSpec, { onExit, onOom }: TaskWatch): Promise<TaskHandle> {
    if (this.failNextCreateWith !== undefined) {
      const err = this.failNextCreateWith;
      this.failNextCreateWith = undefined;
      throw err;
    }
    const oci = readBundleSpec(spec.id, spec.bundle);
    if (spec.checkpoint !== '') throw new UnimplementedError('fake runtime cannot restore', 'CREATE.CHECKPOINT');
    assertKnownProgram(oci.process, `task ${JSON.stringify(spec.id)}`);
    const task = new FakeTask(oci.process.args, spec.stdio.terminal, onExit);
    task.pid = nextPid++;
    this.tasks.set(spec.id, task);
    if (onOom !== undefined) this.oomListeners.set(spec.id, onOom);
    return task;
  }

  /** Pids that exited while no serving process ran (test hook): adopt reports them exited. */
  readonly exitedMeanwhile = new Set<number>();
  /** What the runtime sees of live inits, by pid (test hook): a status the record may be behind. */
  readonly seenAs = new Map<number, LiveStatus>();
  /** Execs made whose record says never started, by `<task id>/<exec id>` (test hook: a Start in flight at the crash). */
  readonly execsMadeMeanwhile = new Map<string, AdoptedProcess>();

  async adopt(spec: AdoptSpec, { onExit, onOom }: TaskWatch): Promise<TaskHandle> {
    const oci = readBundleSpec(spec.id, spec.bundle);
    const gone = (pid: number) => this.exitedMeanwhile.has(pid);
    const task = adopted(new FakeTask(oci.process.args, spec.stdio.terminal, onExit), spec.init, gone(spec.init.pid));
    task.goneMeanwhile = gone;
    if (!gone(spec.init.pid)) task.observedStatus = this.seenAs.get(spec.init.pid);
    for (const [key, made] of this.execsMadeMeanwhile)
      if (key.startsWith(`${spec.id}/`)) task.madeMeanwhile.set(key.slice(spec.id.length + 1), made);
    this.tasks.set(spec.id, task);
    if (onOom !== undefined) this.oomListeners.set(spec.id, onOom);
    return task;
  }

  /** Ids whose Create a crash cut short, leaving a container (test hook); removeLeftover takes them off. */
  readonly leftovers = new Set<string>();

  async removeLeftover(id: string): Promise<boolean> {
    return this.leftovers.delete(id);
  }

  /** The kernel's OOM killer struck in the task (test hook). */
  reportOom(id: string): void {
    this.oomListeners.get(id)?.();
  }

  task(id: string): FakeTask {
    const task = this.tasks.get(id);
    if (task === undefined) throw new Error(`no fake task ${id}`);
    return task;
  }
}
