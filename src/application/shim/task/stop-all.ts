import { Clock } from '../../shared/ports/clock.port';
import { ProcessEntry } from './process-entry';

/** POSIX signal numbers the service sends on its own account. */
export const SIGKILL = 9;
export const SIGTERM = 15;

function isLive(entry: ProcessEntry): boolean {
  const { pid, status } = entry.process;
  return pid > 0 && (status === 'created' || status === 'running' || status === 'paused');
}

/**
 * Sends `signal` to every live process and waits for their exits: for SIGKILL until
 * all have exited, for anything else at most `graceMs` (then the caller escalates).
 */
export async function stopAll(entries: readonly ProcessEntry[], signal: number, clock?: Clock, graceMs = 0): Promise<void> {
  const live = entries.filter(isLive);
  await Promise.allSettled(live.map((e) => e.handle.kill(signal)));
  const exits = Promise.allSettled(live.map((e) => e.exited));
  if (signal === SIGKILL || clock === undefined) {
    await exits;
    return;
  }
  await Promise.race([exits, clock.sleep(graceMs)]);
}
