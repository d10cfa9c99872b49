import { ProcessExit } from '../../../domain/shim/exit-status';
import { nativeAddon } from './native-addon';

/** The status containerd reports when an exit could not be learnt. */
const UNKNOWN_EXIT: ProcessExit = { code: 255, signal: null };

/** Pids a pidfd watch will reap: the orphan sweep (Reaper) must leave their exits to it. */
const watched = new Set<number>();

export function isWatched(pid: number): boolean {
  return watched.has(pid);
}

/**
 * Calls `listener` exactly once when `pid` (a child, or an orphan adopted by a subreaper)
 * has exited and been reaped by that pid alone, so no other waiter can take its status.
 * Register it in the same tick as the spawn: until then the sweep could reap it.
 */
export function watchExit(pid: number, listener: (exit: ProcessExit) => void): void {
  watched.add(pid);
  const done = (exit: ProcessExit) => {
    watched.delete(pid);
    listener(exit);
  };
  try {
    nativeAddon().watchExit(pid, (exit) => done(exit ?? UNKNOWN_EXIT));
  } catch {
    // Gone and reaped by someone else already: its status is lost.
    setImmediate(() => done(UNKNOWN_EXIT));
  }
}
