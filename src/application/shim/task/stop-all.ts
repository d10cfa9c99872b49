import { TaskProcess } from '../../../domain/shim/task-process';
import { Clock } from '../../shared/ports/clock.port';
import { ProcessHandle } from '../ports/process-runtime.port';

/** POSIX signal numbers the service sends on its own account. */
export const SIGKILL = 9;
export const SIGTERM = 15;

/**
 * Sends `signal` to every live process and waits for their exits: for SIGKILL until
 * all have exited, for anything else at most `graceMs` (then the caller escalates).
 */
export async function stopAll(
  processes: readonly TaskProcess<ProcessHandle>[],
  signal: number,
  clock?: Clock,
  graceMs = 0,
): Promise<void> {
  const live = processes.filter((p) => p.isLive);
  await Promise.allSettled(live.map((p) => p.handle.kill(signal)));
  const exits = Promise.allSettled(live.map((p) => p.exited));
  if (signal === SIGKILL || clock === undefined) {
    await exits;
    return;
  }
  await Promise.race([exits, clock.sleep(graceMs)]);
}
