import { FailedPreconditionError, NotFoundError } from '../../../../domain/shared/errors';

/** kill(2) with the errors a client can act on: gone is NotFound, as containerd says. */
export function signalProcess(pid: number, signal: number, subject: string): void {
  try {
    process.kill(pid, signal);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ESRCH')
      throw new NotFoundError(`cannot signal ${subject}: process already finished`, 'PROCESS.ALREADY_FINISHED');
    if (code === 'EPERM')
      throw new FailedPreconditionError(`cannot signal ${subject} (pid ${pid}): permission denied`, 'PROCESS.EPERM');
    throw err;
  }
}

/** Signals each pid, ignoring the ones that exited meanwhile. */
export function signalEach(pids: readonly number[], signal: number): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // exited between the listing and the signal
    }
  }
}
