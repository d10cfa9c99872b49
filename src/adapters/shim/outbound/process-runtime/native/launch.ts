import { closeSync } from 'node:fs';
import { FailedPreconditionError } from '../../../../../domain/shared/errors';
import { ProcessExit } from '../../../../../domain/shim/exit-status';
import { watchExit } from '../../../os/exit-watch';
import { nativeAddon } from '../../../os/native-addon';
import { ChildStdio, DirectStdio } from '../stdio/direct-stdio';
import { DEFAULT_COLS, DEFAULT_ROWS, PtyMaster } from '../stdio/pty-master';
import { TerminalStdio } from '../stdio/terminal-stdio';
import { LaunchPlan } from './launch-plan';
import { spawnGated } from './spawn-gated';
import { StartGate } from './start-gate';

export type { LaunchPlan } from './launch-plan';

/** A started host process: its own session and process group, stdio attached. */
export interface LaunchedProcess {
  readonly pid: number;
  /** Settles once, when the process has exited and (on a terminal) its output was read. */
  readonly exited: Promise<ProcessExit>;
  resize(cols: number, rows: number): void;
  closeStdin(): void;
  /** After exit: let output readers drain, then close. */
  finishStdio(): void;
  releaseStdio(): void;
}

/**
 * The exit of a process spawned in this tick: watched before anything else can run,
 * so the orphan sweep of a subreaper shim never takes it.
 */
function exitOf(pid: number): Promise<ProcessExit> {
  return new Promise((resolve) => watchExit(pid, resolve));
}

/** -1 is /dev/null for the addon's spawn. */
function childFd(stdio: ChildStdio): number {
  return stdio === 'ignore' ? -1 : stdio;
}

/** Without a terminal: the FIFO and file descriptors are handed to the process. */
function launchDirect(plan: LaunchPlan, gate: StartGate | undefined): LaunchedProcess {
  const stdio = new DirectStdio(plan.stdio, plan.subject);
  let pid: number;
  try {
    const [stdin, stdout, stderr] = stdio.child;
    pid = spawnGated(plan, { stdio: [childFd(stdin), childFd(stdout), childFd(stderr)], gate, terminal: false });
  } catch (err) {
    stdio.release();
    throw err;
  }
  stdio.afterSpawn();
  return {
    pid,
    exited: exitOf(pid),
    resize() {
      throw new FailedPreconditionError(`${plan.subject} has no terminal to resize`, 'PTY.NONE');
    },
    closeStdin: () => stdio.closeStdin(),
    finishStdio: () => stdio.finish(),
    releaseStdio: () => stdio.release(),
  };
}

/**
 * On a new pseudo-terminal: the slave is the process's stdio and controlling terminal
 * (the gate's -t), the shim keeps the master and copies between it and the FIFOs. The
 * exit is reported once the terminal's last output was read, or after a bound.
 */
function launchOnTerminal(plan: LaunchPlan, gate: StartGate | undefined): LaunchedProcess {
  const stdio = new TerminalStdio(plan.stdio, plan.subject);
  let master: number;
  let slave: number;
  try {
    [master, slave] = nativeAddon().openPty(DEFAULT_COLS, DEFAULT_ROWS);
  } catch (err) {
    stdio.release();
    throw err;
  }
  let pid: number;
  try {
    pid = spawnGated(plan, { stdio: [slave, slave, slave], gate, terminal: true });
  } catch (err) {
    closeSync(master);
    stdio.release();
    throw err;
  } finally {
    // Only the process holds the slave: the master reads EIO once its last writer is gone.
    closeSync(slave);
  }
  const exit = exitOf(pid);
  const pty = new PtyMaster(master);
  stdio.attach(pty);
  // Without a stdout the terminal is still read, so the process never blocks on it.
  pty.onData(() => undefined);
  return {
    pid,
    exited: exit.then(async (status) => {
      await pty.drained();
      return status;
    }),
    resize: (cols, rows) => pty.resize(cols, rows),
    closeStdin: () => stdio.closeStdin(),
    finishStdio: () => {
      stdio.finish();
      pty.close();
    },
    releaseStdio: () => {
      stdio.release();
      pty.close();
    },
  };
}

/** Starts a plan's program through skiff-gate; a gated init waits for `gate.open()`. */
export function launch(plan: LaunchPlan, gate?: StartGate): LaunchedProcess {
  return plan.stdio.terminal ? launchOnTerminal(plan, gate) : launchDirect(plan, gate);
}
