import { FailedPreconditionError } from '../shared/errors';
import { ExitStatus } from './exit-status';
import { nextStatus, Operation, ProcessStatus } from './lifecycle';

/** The stdio a client asked for: paths, `file://` URIs or '' for none (CONTRACT.md). */
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

/**
 * One process of a task: its init (execId '') or an exec. Holds the status, the pid
 * and the exit status; all decisions go through the lifecycle table.
 */
export class TaskProcess {
  private currentStatus: ProcessStatus = 'created';
  private currentPid = 0;
  private exitStatus: ExitStatus | undefined;

  constructor(
    readonly taskId: string,
    readonly execId: string,
    readonly stdio: Stdio,
  ) {}

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

  /** How messages name this process: `task "web"` or `exec "sh" of task "web"`. */
  get subject(): string {
    const task = `task ${JSON.stringify(this.taskId)}`;
    return this.isInit ? task : `exec ${JSON.stringify(this.execId)} of ${task}`;
  }

  /** Checks `op` against the current status; throws the refusal. Changes nothing. */
  check(op: Operation): Transition {
    return { from: this.currentStatus, to: nextStatus(this.currentStatus, op, this.subject) };
  }

  /** Kill needs a process to signal: an exec that was never started has none. */
  checkKill(): Transition {
    const transition = this.check('kill');
    if (this.currentPid === 0) {
      throw new FailedPreconditionError(`cannot kill ${this.subject}: process not created (start it first)`, 'PROCESS.NOT_CREATED');
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

  assignPid(pid: number): void {
    this.currentPid = pid;
  }

  /** Records the exit the first time it is reported; later reports are ignored. */
  markExited(exit: ExitStatus): void {
    if (this.exitStatus !== undefined || this.currentStatus === 'deleted') return;
    this.exitStatus = exit;
    this.currentStatus = 'stopped';
  }

  markDeleted(): void {
    this.currentStatus = 'deleted';
  }
}
