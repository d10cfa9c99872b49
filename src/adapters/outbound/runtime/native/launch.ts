import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { FailedPreconditionError, InternalError } from '../../../../domain/errors';
import { ProcessExit } from '../../../../domain/task/exit-status';
import { Stdio } from '../../../../domain/task/task-process';
import { DirectStdio } from '../stdio/direct-stdio';
import { TerminalStdio } from '../stdio/terminal-stdio';

/** What to run: an executable, its argv (argv[0] included), env, cwd and credentials. */
export interface LaunchPlan {
  readonly file: string;
  readonly argv: readonly string[];
  readonly env: readonly string[];
  readonly cwd: string;
  readonly user: { readonly uid: number; readonly gid: number } | undefined;
  readonly stdio: Stdio;
  readonly subject: string;
}

/** A started host process: its own session and process group, stdio attached. */
export interface LaunchedProcess {
  readonly pid: number;
  readonly exited: Promise<ProcessExit>;
  resize(cols: number, rows: number): void;
  closeStdin(): void;
  /** After exit: let output readers drain, then close. */
  finishStdio(): void;
  releaseStdio(): void;
}

function envObject(env: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of env) {
    const eq = entry.indexOf('=');
    if (eq > 0) out[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return out;
}

function signalNumber(name: NodeJS.Signals | null): number | null {
  return name === null ? null : (constants.signals[name] ?? null);
}

/** Spawns without a terminal: stdio descriptors are handed to the process. */
function launchDirect(plan: LaunchPlan): LaunchedProcess {
  const stdio = new DirectStdio(plan.stdio, plan.subject);
  const child = spawn(plan.file, plan.argv.slice(1), {
    argv0: plan.argv[0],
    cwd: plan.cwd,
    env: envObject(plan.env),
    stdio: stdio.child,
    detached: true, // setsid: its own session and process group, so Pause and `kill --all` reach its children
    uid: plan.user?.uid,
    gid: plan.user?.gid,
  });
  stdio.afterSpawn();
  if (child.pid === undefined) {
    stdio.release();
    throw new InternalError(`${plan.subject}: could not start ${plan.file}`, 'SPAWN.FAILED');
  }
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal: signalNumber(signal) }));
  });
  child.on('error', () => undefined);
  return {
    pid: child.pid,
    exited,
    resize() {
      throw new FailedPreconditionError(`${plan.subject} has no terminal to resize`, 'PTY.NONE');
    },
    closeStdin: () => stdio.closeStdin(),
    finishStdio: () => stdio.finish(),
    releaseStdio: () => stdio.release(),
  };
}

/** Spawns on a new pseudo-terminal (node-pty: setsid + controlling terminal). */
function launchOnTerminal(plan: LaunchPlan): LaunchedProcess {
  const stdio = new TerminalStdio(plan.stdio, plan.subject);
  // Loaded only for terminals: keeps node-pty off the shim's start-up path.
  const pty = require('node-pty') as typeof import('node-pty');
  let term: import('node-pty').IPty;
  try {
    term = pty.spawn(plan.file, [...plan.argv.slice(1)], {
      name: 'xterm',
      cols: 80,
      rows: 24,
      cwd: plan.cwd,
      env: envObject(plan.env),
      encoding: null,
      uid: plan.user?.uid,
      gid: plan.user?.gid,
    });
  } catch (err) {
    stdio.release();
    throw new InternalError(`${plan.subject}: could not start ${plan.file} on a terminal: ${(err as Error).message}`, 'SPAWN.FAILED', { cause: err });
  }
  stdio.attach({
    onData: (listener) => term.onData((data) => listener(data as unknown as Buffer)),
    write: (data) => term.write(data as unknown as string),
    pause: () => term.pause(),
    resume: () => term.resume(),
  });
  const exited = new Promise<ProcessExit>((resolve) => {
    term.onExit(({ exitCode, signal }) => resolve(signal ? { code: null, signal } : { code: exitCode, signal: null }));
  });
  return {
    pid: term.pid,
    exited,
    resize: (cols, rows) => term.resize(cols, rows),
    closeStdin: () => stdio.closeStdin(),
    finishStdio: () => stdio.finish(),
    releaseStdio: () => stdio.release(),
  };
}

export function launch(plan: LaunchPlan): LaunchedProcess {
  return plan.stdio.terminal ? launchOnTerminal(plan) : launchDirect(plan);
}
