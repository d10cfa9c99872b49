import { ProcessExit } from '../../../../../domain/shim/exit-status';
import { nativeAddon } from '../../../os/native-addon';
import { readProcStat } from '../../../os/proc-fs';

/**
 * The status reported when an exit cannot be read: containerd's CRI plugin reports 255
 * for a container whose exit it could not learn (unknownExitCode, pkg/cri/server), as
 * skiff's exit watch does for a process reaped by someone else (exit-watch.ts).
 */
export const UNKNOWN_EXIT: ProcessExit = { code: 255, signal: null };

/** The running process a previous serving process made, if `pid` is still that one: same start time, not a zombie. */
export function isSameLiveProcess(pid: number, startTime: number): boolean {
  const stat = readProcStat(pid);
  return stat !== undefined && stat.startTicks === startTime && stat.state !== 'Z';
}

/**
 * Calls `listener` once when an adopted process (made by a previous serving process, so
 * not this one's child) exits. Only a parent can read an exit status: its pidfd turns
 * readable at the exit, and the status is read from /proc while the process is still a
 * zombie its parent has not reaped (stat field 52); once reaped, it is UNKNOWN_EXIT.
 * A process already gone, or a pid now another process's, is reported on the next turn.
 */
export function watchAdoptedExit(pid: number, startTime: number, listener: (exit: ProcessExit) => void): void {
  const settle = () => listener(zombieExit(pid, startTime) ?? UNKNOWN_EXIT);
  if (pid <= 0 || !isSameLiveProcess(pid, startTime)) {
    setImmediate(settle);
    return;
  }
  try {
    // Reaps it if it is this process's child after all (it never is today: see docs/failure-domains.md).
    nativeAddon().watchExit(pid, (exit) => (exit === null ? settle() : listener(exit)));
  } catch {
    setImmediate(settle);
  }
}

/** The exit of `pid` while it is an unreaped zombie of the same start time; undefined otherwise. */
function zombieExit(pid: number, startTime: number): ProcessExit | undefined {
  const stat = readProcStat(pid);
  if (stat === undefined || stat.startTicks !== startTime || stat.state !== 'Z') return undefined;
  const status = stat.exitCode;
  const signal = status & 0x7f;
  return signal === 0 ? { code: (status >> 8) & 0xff, signal: null } : { code: null, signal };
}
