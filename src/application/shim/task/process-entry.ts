import { NotFoundError } from '../../../domain/shared/errors';
import { ExitStatus } from '../../../domain/shim/exit-status';
import { TaskProcess } from '../../../domain/shim/task-process';
import { RuntimeProcess } from '../ports/process-runtime.port';
import { SerialQueue } from './serial-queue';

/**
 * The service's bookkeeping for one process: the domain record, the runtime's
 * handle, the latch every Wait awaits and the queue that serialises state changes.
 */
export class ProcessEntry {
  readonly queue = new SerialQueue();
  /** Settles once: with the exit status, or NotFound if deleted without ever running. */
  readonly exited: Promise<ExitStatus>;
  private settleExit!: (exit: ExitStatus) => void;
  private failExit!: (err: Error) => void;
  private runtimeHandle: RuntimeProcess | undefined;

  constructor(readonly process: TaskProcess) {
    this.exited = new Promise<ExitStatus>((resolve, reject) => {
      this.settleExit = resolve;
      this.failExit = reject;
    });
    // A latch nobody awaited must not surface as an unhandled rejection.
    this.exited.catch(() => undefined);
  }

  get handle(): RuntimeProcess {
    if (this.runtimeHandle === undefined) {
      throw new NotFoundError(`${this.process.subject} is still being created`, 'PROCESS.CREATING');
    }
    return this.runtimeHandle;
  }

  attach(handle: RuntimeProcess): void {
    this.runtimeHandle = handle;
    this.process.assignPid(handle.pid);
  }

  /** Records the exit (first report wins) and wakes every waiter. */
  recordExit(exit: ExitStatus): void {
    this.process.markExited(exit);
    this.settleExit(exit);
  }

  /** Forgets the process; waiters of one that never ran learn it is gone. */
  markDeleted(): void {
    this.process.markDeleted();
    this.failExit(new NotFoundError(`${this.process.subject} was deleted before it ran`, 'PROCESS.DELETED'));
  }
}
