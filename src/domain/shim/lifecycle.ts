import { FailedPreconditionError, NotFoundError } from '../shared/errors';

/** The states a process moves through (v1.types.Status, without PAUSING, which skiff never reports). */
export type ProcessStatus = 'created' | 'running' | 'paused' | 'stopped' | 'deleted';

/** What a client (or the operating system, for `exit`) can do to a process. */
export type Operation =
  'start' | 'pause' | 'resume' | 'kill' | 'delete' | 'exit' | 'exec' | 'update' | 'checkpoint' | 'resize';

/**
 * Every allowed move, in one place (after containerd's runc shim,
 * pkg/process/init_state.go and exec_state.go). A missing entry is refused.
 * `exec`, `update`, `checkpoint`, `pause` and `resume` are asked of a task's init
 * process on behalf of the whole task.
 */
export const TRANSITIONS: Readonly<Record<ProcessStatus, Readonly<Partial<Record<Operation, ProcessStatus>>>>> = {
  created: {
    start: 'running',
    kill: 'created',
    delete: 'deleted',
    exit: 'stopped',
    exec: 'created',
    update: 'created',
    resize: 'created',
  },
  running: {
    pause: 'paused',
    kill: 'running',
    exit: 'stopped',
    exec: 'running',
    update: 'running',
    checkpoint: 'running',
    resize: 'running',
  },
  paused: {
    resume: 'running',
    kill: 'paused',
    exit: 'stopped',
    update: 'paused',
    checkpoint: 'paused',
    resize: 'paused',
  },
  stopped: { delete: 'deleted', exit: 'stopped' },
  deleted: {},
};

/**
 * The status after `op`, or the refusal: NotFound for anything on a deleted process
 * and for a kill after exit ("process already finished", as containerd says),
 * FailedPrecondition naming the state otherwise. `subject` names the process,
 * e.g. `task "web"` or `exec "sh" of task "web"`.
 */
export function nextStatus(status: ProcessStatus, op: Operation, subject: string): ProcessStatus {
  const next = TRANSITIONS[status][op];
  if (next !== undefined) return next;
  if (status === 'deleted') {
    throw new NotFoundError(`${subject} was deleted`, 'PROCESS.DELETED');
  }
  if (status === 'stopped' && op === 'kill') {
    throw new NotFoundError(`cannot kill ${subject}: process already finished`, 'PROCESS.ALREADY_FINISHED');
  }
  throw new FailedPreconditionError(`cannot ${op} ${subject} in ${status} state`, 'PROCESS.INVALID_TRANSITION');
}
