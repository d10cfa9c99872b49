import { FailedPreconditionError, NotFoundError } from '../../../src/domain/shared/errors';
import { nextStatus, Operation, ProcessStatus, TRANSITIONS } from '../../../src/domain/shim/lifecycle';

const STATUSES: ProcessStatus[] = ['created', 'running', 'paused', 'stopped', 'deleted'];
const OPERATIONS: Operation[] = [
  'start',
  'pause',
  'resume',
  'kill',
  'delete',
  'exit',
  'exec',
  'update',
  'checkpoint',
  'resize',
];

/**
 * The expected outcome of every (status, operation) pair, written out independently
 * of TRANSITIONS (after containerd's init_state.go): a status, or the error kind.
 */
const EXPECTED: Record<ProcessStatus, Record<Operation, ProcessStatus | 'FailedPrecondition' | 'NotFound'>> = {
  created: {
    start: 'running',
    pause: 'FailedPrecondition',
    resume: 'FailedPrecondition',
    kill: 'created',
    delete: 'deleted',
    exit: 'stopped',
    exec: 'created',
    update: 'created',
    checkpoint: 'FailedPrecondition',
    resize: 'created',
  },
  running: {
    start: 'FailedPrecondition',
    pause: 'paused',
    resume: 'FailedPrecondition',
    kill: 'running',
    delete: 'FailedPrecondition',
    exit: 'stopped',
    exec: 'running',
    update: 'running',
    checkpoint: 'running',
    resize: 'running',
  },
  paused: {
    start: 'FailedPrecondition',
    pause: 'FailedPrecondition',
    resume: 'running',
    kill: 'paused',
    delete: 'FailedPrecondition',
    exit: 'stopped',
    exec: 'FailedPrecondition',
    update: 'paused',
    checkpoint: 'paused',
    resize: 'paused',
  },
  stopped: {
    start: 'FailedPrecondition',
    pause: 'FailedPrecondition',
    resume: 'FailedPrecondition',
    kill: 'NotFound',
    delete: 'deleted',
    exit: 'stopped',
    exec: 'FailedPrecondition',
    update: 'FailedPrecondition',
    checkpoint: 'FailedPrecondition',
    resize: 'FailedPrecondition',
  },
  deleted: {
    start: 'NotFound',
    pause: 'NotFound',
    resume: 'NotFound',
    kill: 'NotFound',
    delete: 'NotFound',
    exit: 'NotFound',
    exec: 'NotFound',
    update: 'NotFound',
    checkpoint: 'NotFound',
    resize: 'NotFound',
  },
};

describe('process lifecycle', () => {
  const cases = STATUSES.flatMap((status) => OPERATIONS.map((op) => [status, op, EXPECTED[status][op]] as const));

  it.each(cases)('%s + %s -> %s', (status, op, expected) => {
    if (expected === 'FailedPrecondition' || expected === 'NotFound') {
      let error: unknown;
      try {
        nextStatus(status, op, 'task "t1"');
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(expected === 'NotFound' ? NotFoundError : FailedPreconditionError);
      expect((error as Error).message).toContain('task "t1"');
      if (expected === 'FailedPrecondition') expect((error as Error).message).toContain(`${status} state`);
    } else {
      expect(nextStatus(status, op, 'task "t1"')).toBe(expected);
    }
  });

  it('kill after exit says the process already finished, as containerd does', () => {
    expect(() => nextStatus('stopped', 'kill', 'task "t1"')).toThrow(/process already finished/);
  });

  it('lists no operation outside the known set', () => {
    for (const status of STATUSES) {
      for (const op of Object.keys(TRANSITIONS[status])) expect(OPERATIONS).toContain(op);
    }
  });
});
