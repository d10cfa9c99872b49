import { FailedPreconditionError, NotFoundError } from '../shared/errors';
import { ExitStatus } from './exit-status';
import { nextStatus, Operation, ProcessStatus } from './lifecycle';
import { SerialQueue } from './serial-queue';

/** The stdio a client asked for: paths, `file://` URIs or '' for none (docs/shim-contract.md, "stdio"). */
export interface Stdio {
  readonly stdin: string;
  readonly stdout: string;
  readonly stderr: string;
  readonly terminal: boolean;
}

/** A move checked against the lifecycle, applied only if nothing changed meanwhile. */
export interface Transition {
  readonly from: ProcessStatus;
  readonly to: ProcessStatus;
}

/** What the runtime made for a process: the domain knows only its pid. */
export interface Handle {
  readonly pid: number;
}

/**
 * One process of a task, its init (execId '') or an exec, and the one record of it:
 * its status, pid and exit status, the runtime's handle `H` on it, the latch every
 * Wait awaits and the queue that serialises every operation on it (containerd's
 * per-process mutex: two Starts sent together must not both see CREATED). Every
 * decision goes through the lifecycle table.
 */
export class TaskProcess<H extends Handle = Handle> {
  readonly queue = new SerialQueue();
  /** Settles once: with the exit status, or NotFound if deleted without ever running. */
  readonly exited: Promise<ExitStatus>;
  private currentStatus: ProcessStatus = 'created';
  private currentPid = 0;
  private exitStatus: ExitStatus | undefined;
  private attached: H | undefined;
  private settleExit!: (exit: ExitStatus) => void;
  private failExit!: (err: Error) => void;

  constructor(
    readonly taskId: string,
    readonly execId: string,
    readonly stdio: Stdio,
  ) {
    this.exited = new Promise<ExitStatus>((resolve, reject) => {
      this.settleExit = resolve;
      this.failExit = reject;
    });
    // A latch nobody awaited must not surface as an unhandled rejection.
    this.exited.catch(() => undefined);
  }

  get status(): ProcessStatus {
    return this.currentStatus;
  }

  get pid(): number {
    return this.currentPid;
  }

  get exit(): ExitStatus | undefined {
    return this.exitStatus;
  }

  get isInit(): boolean {
    return this.execId === '';
  }

  /** True while the process can still receive signals (it has a pid and has not exited). */
  get isLive(): boolean {
    const s = this.currentStatus;
    return this.currentPid > 0 && (s === 'created' || s === 'running' || s === 'paused');
  }

  /** How messages name this process: `task "web"` or `exec "sh" of task "web"`. */
  get subject(): string {
    const task = `task ${JSON.stringify(this.taskId)}`;
    return this.isInit ? task : `exec ${JSON.stringify(this.execId)} of ${task}`;
  }

  /** The runtime's handle; NotFound while the runtime is still making it. */
  get handle(): H {
    if (this.attached === undefined) {
      throw new NotFoundError(`${this.subject} is still being created`, 'PROCESS.CREATING');
    }
    return this.attached;
  }

  get isAttached(): boolean {
    return this.attached !== undefined;
  }

  attach(handle: H): void {
    this.attached = handle;
    this.currentPid = handle.pid;
  }

  /** Checks `op` against the current status; throws the refusal. Changes nothing. */
  check(op: Operation): Transition {
    const transition = { from: this.currentStatus, to: nextStatus(this.currentStatus, op, this.subject) };
    // Kill needs a process to signal: an exec that was never started has none.
    if (op === 'kill' && this.currentPid === 0) {
      throw new FailedPreconditionError(
        `cannot kill ${this.subject}: process not created (start it first)`,
        'PROCESS.NOT_CREATED',
      );
    }
    return transition;
  }

  /**
   * Applies a checked move once its side effect succeeded. If the process exited
   * while the side effect ran (an exit can arrive before `start` resolves), the
   * exit wins and the move is dropped.
   */
  commit(transition: Transition): void {
    if (this.currentStatus === transition.from) this.currentStatus = transition.to;
  }

  /**
   * Takes up where a previous serving process left the process (its record): the status,
   * and the exit if it was learnt (which wakes every waiter, as markExited does).
   */
  restore(status: Exclude<ProcessStatus, 'deleted'>, exit: ExitStatus | undefined): void {
    if (status === 'stopped' && exit !== undefined) {
      this.markExited(exit);
      return;
    }
    this.currentStatus = status === 'stopped' ? 'running' : status;
  }

  assignPid(pid: number): void {
    this.currentPid = pid;
  }

  /** Records the exit the first time it is reported (later reports are ignored) and wakes every waiter. */
  markExited(exit: ExitStatus): void {
    if (this.exitStatus !== undefined || this.currentStatus === 'deleted') return;
    this.exitStatus = exit;
    this.currentStatus = 'stopped';
    this.settleExit(exit);
  }

  /**
   * Forgets the process; waiters of one whose exit was never recorded learn it is gone, and
   * `why` (one that never ran, by default; one removed by another, at a forget).
   */
  markDeleted(why = 'was deleted before it ran'): void {
    this.currentStatus = 'deleted';
    // Only when no exit was recorded: an error is costly to build (its stack), and the
    // latch of a process that exited is settled already.
    if (this.exitStatus === undefined) {
      this.failExit(new NotFoundError(`${this.subject} ${why}`, 'PROCESS.DELETED'));
    }
  }
}
