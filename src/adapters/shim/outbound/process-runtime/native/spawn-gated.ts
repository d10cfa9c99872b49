import { InternalError } from '../../../../../domain/shared/errors';
import { gatePath, nativeAddon } from '../../../os/native-addon';
import { LaunchPlan } from './launch-plan';
import { StartGate } from './start-gate';

/** How the process is started: its stdio (child fds 0-2), gate, and terminal. */
export interface GateOptions {
  readonly stdio: readonly [number, number, number];
  readonly gate: StartGate | undefined;
  readonly terminal: boolean;
}

/** skiff-gate's command line (native/gate/gate.c): the flags, then the program as planned. */
function gateArgv(plan: LaunchPlan, options: GateOptions): string[] {
  const flags: string[] = [];
  if (options.gate !== undefined) flags.push('-w');
  if (options.terminal) flags.push('-t');
  if (plan.user !== undefined) flags.push('-u', String(plan.user.uid), '-g', String(plan.user.gid));
  return [gatePath(), ...flags, '--', plan.file, ...plan.argv];
}

/**
 * Starts the plan's program through skiff-gate, in a new session (so Pause and `kill
 * --all` reach its children), without waiting for the gate's own exec: its file is the
 * shim's and the plan's cwd was checked, so the wait (~0.17 ms of every Create) would
 * catch nothing (native/addon/launch.c). The gate waits for the start byte on fd 3
 * when there is a gate, takes the terminal, drops to the spec's user, and execs the
 * program in place, so the pid returned is the program's. The shim's copy of the gate's
 * read end is closed whatever happens.
 */
export function spawnGated(plan: LaunchPlan, options: GateOptions): number {
  const fds = options.gate === undefined ? [...options.stdio] : [...options.stdio, options.gate.readFd];
  try {
    return nativeAddon().spawnNoWait(gatePath(), gateArgv(plan, options), plan.env, plan.cwd, fds);
  } catch (err) {
    throw new InternalError(
      `${plan.subject}: could not start ${plan.file}: ${(err as Error).message}`,
      'SPAWN.FAILED',
      { cause: err },
    );
  } finally {
    options.gate?.afterSpawn();
  }
}
