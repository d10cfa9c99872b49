import { constants } from 'node:os';
import { nativeAddon } from '../../../os/native-addon';
import { pollUntil } from './poll-until';

const { SIGKILL, SIGCONT } = constants.signals;

/** How long a signal waits for its target's exec before it is sent all the same. */
const LAUNCH_WAIT_MS = 5000;

/**
 * Resolves once `signal` may go to `pids`: once none is a launch still pending.
 * spawnGated starts a leader without waiting for its exec, and until then the child
 * shares the shim's memory and a copy of each of its descriptors. A signal sent then
 * would reach that child: SIGSTOP would freeze it with them, SIGQUIT would dump the
 * shim's memory as its core. After the exec it reaches skiff-gate or the program.
 * SIGKILL and SIGCONT never wait: they do no such harm, and a child stopped before its
 * exec needs SIGCONT to get there. Past the bound it resolves anyway: a signal sent
 * late, never one not sent.
 */
export async function readyForSignal(signal: number, pids: Iterable<number>): Promise<void> {
  if (signal === SIGKILL || signal === SIGCONT) return;
  const addon = nativeAddon();
  const waiting = [...pids];
  await pollUntil(() => !waiting.some((pid) => addon.launchPending(pid)), Date.now() + LAUNCH_WAIT_MS);
}
