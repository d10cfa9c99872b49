import { AlreadyExistsError, NotFoundError } from '../shared/errors';
import { assertValidId } from './task-id';
import { Handle, Stdio, TaskProcess } from './task-process';

/**
 * A task: its init process and the exec processes added to it, addressed by exec id;
 * the one owner of its processes. `T` is the runtime's handle on the init (which acts
 * on the whole task), `E` its handle on an exec.
 */
export class Task<T extends Handle = Handle, E extends Handle = Handle> {
  readonly init: TaskProcess<T>;
  private readonly execs = new Map<string, TaskProcess<E>>();

  constructor(
    readonly id: string,
    readonly bundle: string,
    stdio: Stdio,
  ) {
    this.init = new TaskProcess<T>(id, '', stdio);
  }

  /** The process an (id, exec_id) pair names; '' is the init. NotFound otherwise. */
  process(execId: string): TaskProcess<T> | TaskProcess<E> {
    if (execId === '') return this.init;
    const exec = this.execs.get(execId);
    if (exec === undefined) {
      throw new NotFoundError(
        `exec ${JSON.stringify(execId)} of task ${JSON.stringify(this.id)} not found`,
        'EXEC.NOT_FOUND',
      );
    }
    return exec;
  }

  /**
   * Adds an exec process in CREATED state (pid 0, nothing runs until start). The id
   * stays taken until the exec is deleted, as in containerd.
   */
  addExec(execId: string, stdio: Stdio): TaskProcess<E> {
    if (this.execs.has(execId)) {
      throw new AlreadyExistsError(
        `exec ${JSON.stringify(execId)} already exists in task ${JSON.stringify(this.id)}`,
        'EXEC.EXISTS',
      );
    }
    assertValidId(execId, 'exec id');
    this.init.check('exec');
    const exec = new TaskProcess<E>(this.id, execId, stdio);
    this.execs.set(execId, exec);
    return exec;
  }

  /** An exec a previous serving process recorded, whatever the init's state now. */
  restoreExec(execId: string, stdio: Stdio): TaskProcess<E> {
    const exec = new TaskProcess<E>(this.id, execId, stdio);
    this.execs.set(execId, exec);
    return exec;
  }

  /** Forgets an exec: it is marked deleted (TaskProcess.markDeleted says `why` to its waiters) and its id is free again. */
  removeExec(execId: string, why?: string): void {
    this.execs.get(execId)?.markDeleted(why);
    this.execs.delete(execId);
  }

  execProcesses(): TaskProcess<E>[] {
    return [...this.execs.values()];
  }

  /** Every process that has not been deleted, init first. */
  processes(): (TaskProcess<T> | TaskProcess<E>)[] {
    return [this.init, ...this.execs.values()];
  }
}
