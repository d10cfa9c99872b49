import { Task } from '../../../domain/shim/task';
import { TaskProcess } from '../../../domain/shim/task-process';
import { CreateSpec, ProcessHandle, TaskHandle } from '../ports/process-runtime.port';
import { ExecRecord, ProcessRecord, RecordedStatus, TaskJournal, TaskRecord } from '../ports/task-journal.port';

/** What a task was made from: the part of its record that never changes. */
export type TaskOrigin = Pick<
  TaskRecord,
  'id' | 'bundle' | 'runtime' | 'rootfs' | 'checkpoint' | 'options' | 'createdAt'
>;

export function originOf(spec: CreateSpec, runtime: string, createdAt: Date): TaskOrigin {
  const { id, bundle, rootfs, checkpoint, options } = spec;
  return { id, bundle, runtime, rootfs, checkpoint, options, createdAt };
}

/**
 * Keeps the journal's record of each task in step with the task (docs/keeper-protocol.md,
 * "The task directory"): a save after every change, in order per task, and a forget at
 * Delete. A failed write costs only the task's recovery, never the RPC: it is one line
 * on the log.
 */
export class TaskRecords {
  private readonly origins = new Map<string, TaskOrigin>();
  private readonly execSpecs = new Map<string, Readonly<Record<string, unknown>>>();
  /** The last write of each task, so a Delete never runs while one is still landing. */
  private readonly writes = new Map<string, Promise<void>>();
  /** The newest record of each task not yet written: changes that come quicker than writes are written once. */
  private readonly unwritten = new Map<string, TaskRecord>();
  /** Tasks being deleted. */
  private readonly closed = new Set<string>();

  constructor(
    private readonly journal: TaskJournal,
    private readonly warn: (line: string) => void,
  ) {}

  track(origin: TaskOrigin): void {
    this.origins.set(origin.id, origin);
  }

  execSpec(id: string, execId: string, spec: Readonly<Record<string, unknown>>): void {
    this.execSpecs.set(keyOf(id, execId), spec);
  }

  /** Writes the task's record as it is now; resolves once it is on disk (or the write failed). */
  save(task: Task<TaskHandle, ProcessHandle>): Promise<void> {
    const origin = this.origins.get(task.id);
    if (origin === undefined || this.closed.has(task.id)) return Promise.resolve();
    const record: TaskRecord = {
      ...origin,
      init: processRecord(task.init),
      execs: task
        .execProcesses()
        .filter((exec) => exec.status !== 'deleted')
        .map((exec): ExecRecord => ({
          ...processRecord(exec),
          spec: this.execSpecs.get(keyOf(task.id, exec.execId)) ?? {},
        })),
    };
    this.unwritten.set(task.id, record);
    return this.chain(task.id, async () => {
      const newest = this.unwritten.get(task.id);
      if (newest === undefined) return;
      this.unwritten.delete(task.id);
      await this.journal.record(newest);
    });
  }

  /** The exec was deleted: its spec is no longer needed (the task's next save drops it). */
  execDeleted(id: string, execId: string): void {
    this.execSpecs.delete(keyOf(id, execId));
  }

  /**
   * The task is being deleted: from now on nothing is saved (its directory is going), and
   * this resolves once every write so far has landed.
   */
  closing(id: string): Promise<void> {
    this.closed.add(id);
    return this.writes.get(id) ?? Promise.resolve();
  }

  /** Its Delete failed: the task lives on, and so does its record. */
  reopen(task: Task<TaskHandle, ProcessHandle>): void {
    this.closed.delete(task.id);
    void this.save(task);
  }

  /**
   * Another removes the task's directory (containerd's `delete` once its pod keeper died): what
   * is held of it here goes, and nothing more is written. Call once `closing` has resolved.
   */
  drop(id: string): void {
    this.untrack(id);
    this.writes.delete(id);
  }

  forget(id: string): Promise<void> {
    this.untrack(id);
    const done = this.chain(id, () => this.journal.forget(id));
    void done.then(() => {
      if (this.writes.get(id) === done) this.writes.delete(id);
    });
    return done;
  }

  /** Resolves once every write asked for so far has landed (or failed): what a hand-over waits for. */
  async settled(): Promise<void> {
    for (;;) {
      const pending = [...this.writes.values()];
      await Promise.all(pending);
      if ([...this.writes.values()].every((write) => pending.includes(write))) return;
    }
  }

  private untrack(id: string): void {
    this.origins.delete(id);
    this.closed.delete(id);
    this.unwritten.delete(id);
    for (const key of this.execSpecs.keys()) if (key.startsWith(`${id}\0`)) this.execSpecs.delete(key);
  }

  private chain(id: string, write: () => Promise<void>): Promise<void> {
    const previous = this.writes.get(id) ?? Promise.resolve();
    const next = previous.then(write).catch((err: unknown) => {
      this.warn(
        `task ${JSON.stringify(id)}: cannot write its record, so a restarted server cannot take it over: ${reason(err)}`,
      );
    });
    this.writes.set(id, next);
    return next;
  }
}

function processRecord(process: TaskProcess<ProcessHandle>): ProcessRecord {
  const handle = process.isAttached ? process.handle : undefined;
  return {
    execId: process.execId,
    stdio: process.stdio,
    pid: process.pid,
    startTime: handle?.startTime ?? 0,
    status: process.status as RecordedStatus,
    exit: process.exit,
  };
}

function keyOf(id: string, execId: string): string {
  return `${id}\0${execId}`;
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
