/** Signal numbers offset exit codes the way shells and containerd's reaper do. */
export const SIGNAL_EXIT_OFFSET = 128;

/** How a process ended, as the operating system reports it. */
export interface ProcessExit {
  /** Exit code when the process called exit; null when a signal ended it. */
  readonly code: number | null;
  /** Signal number when a signal ended it; null otherwise. */
  readonly signal: number | null;
  /**
   * When it ended, where the runtime knows (a pod keeper's reap time): an exit during a
   * restart of the serving process is learnt later than it happened. Absent: when it was learnt.
   */
  readonly exitedAt?: Date;
}

/** The status the service reports: the exit code, or 128+signal (docs/shim-contract.md, "Exit statuses"). */
export interface ExitStatus {
  readonly status: number;
  readonly exitedAt: Date;
}

/** `learntAt`: when the exit was learnt, its time unless the exit carries its own. */
export function exitStatusOf(exit: ProcessExit, learntAt: Date): ExitStatus {
  const status = exit.signal !== null && exit.signal > 0 ? SIGNAL_EXIT_OFFSET + exit.signal : (exit.code ?? 0);
  return { status, exitedAt: exit.exitedAt ?? learntAt };
}
