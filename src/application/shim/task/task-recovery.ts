import { FailedPreconditionError } from '../../../domain/shared/errors';
import { ProcessExit } from '../../../domain/shim/exit-status';
import { parseOciProcess } from '../../../domain/shim/oci-spec';
import { Task } from '../../../domain/shim/task';
import { assertValidId } from '../../../domain/shim/task-id';
import { TaskProcess } from '../../../domain/shim/task-process';
import { ExecSpec, ProcessHandle, ProcessRuntime, TaskHandle } from '../ports/process-runtime.port';
import { ExecRecord, TaskRecord } from '../ports/task-journal.port';

type ShimTask = Task<TaskHandle, ProcessHandle>;
type ShimProcess = TaskProcess<ProcessHandle>;

/** How a rebuilt task reports what its processes do from now on: the service's own listeners. */
export interface RecoveryListeners {
  /** Resolves once the exit is recorded. */
  onExit(process: ShimProcess, exit: ProcessExit): Promise<void>;
  onOom(id: string): void;
  /** An exec that could not be taken over: the task is, without it. */
  problem(line: string): void;
}

/**
 * Rebuilds a task a previous serving process recorded, its processes taken over by the
 * runtime (docs/failure-domains.md, "Task records and the takeover"): each takes up its recorded
 * status, and a process the runtime finds gone is reported exited through `listeners`.
 */
export async function recoverTask(
  record: TaskRecord,
  runtime: ProcessRuntime,
  listeners: RecoveryListeners,
): Promise<ShimTask> {
  assertValidId(record.id, 'task id');
  const subject = `task ${JSON.stringify(record.id)}`;
  if (record.runtime !== runtime.name || runtime.adopt === undefined) {
    throw new FailedPreconditionError(
      `${subject} was made by the ${record.runtime} runtime, which this server (--runtime ${runtime.name}) cannot take over`,
      'RECOVERY.RUNTIME',
    );
  }
  const task: ShimTask = new Task(record.id, record.bundle, record.init.stdio);
  task.init.restore(record.init.status, record.init.exit);
  const spec = {
    ...record,
    stdio: record.init.stdio,
    init: { pid: record.init.pid, startTime: record.init.startTime },
  };
  const watch = {
    onExit: (exit: ProcessExit) => listeners.onExit(task.init, exit),
    onOom: () => listeners.onOom(record.id),
    execs: () => task.execProcesses().flatMap((e) => (e.isAttached ? [e.handle] : [])),
  };
  const handle = await runtime.adopt(spec, watch);
  task.init.attach(handle);
  // The record is written after the reply it goes with: a crash in between leaves it one change
  // behind (a Start, Pause or Resume containerd was told of). What the runtime sees wins.
  const seen = handle.observedStatus;
  if (seen !== undefined && task.init.status !== 'stopped' && task.init.status !== seen)
    task.init.restore(seen, undefined);
  for (const exec of record.execs) {
    await recoverExec(task, exec, listeners).catch((err: unknown) => {
      task.removeExec(exec.execId);
      listeners.problem(`${subject}: exec ${JSON.stringify(exec.execId)} not taken over: ${(err as Error).message}`);
    });
  }
  return task;
}

async function recoverExec(task: ShimTask, record: ExecRecord, listeners: RecoveryListeners): Promise<void> {
  assertValidId(record.execId, 'exec id');
  const exec = task.restoreExec(record.execId, record.stdio);
  exec.restore(record.status, record.exit);
  const what = `exec spec of ${exec.subject}`;
  const spec: ExecSpec = {
    execId: record.execId,
    stdio: record.stdio,
    process: parseOciProcess(record.spec, what),
    processJson: record.spec,
  };
  const onExit = (exit: ProcessExit) => listeners.onExit(exec, exit);
  const init = task.init.handle;
  // A Start in flight at the crash may have made the exec before its record was written.
  const made = record.pid === 0 && record.exit === undefined ? init.startedExec?.(record.execId) : undefined;
  if (made !== undefined && init.adoptExec !== undefined) {
    exec.restore('running', undefined);
    exec.attach(init.adoptExec(spec, made, onExit));
  } else if (record.pid === 0) {
    if (record.exit === undefined) init.cancelStart?.(record.execId);
    exec.attach(await init.exec(spec, onExit));
  } else if (init.adoptExec !== undefined) {
    exec.attach(init.adoptExec(spec, { pid: record.pid, startTime: record.startTime }, onExit));
  } else {
    throw new FailedPreconditionError(`${exec.subject}: the runtime cannot take over a running exec`, 'RECOVERY.EXEC');
  }
}
