import { Stdio } from '../../../domain/shim/task-process';

export const CONSOLE = Symbol('Console');

export interface ConsoleEvents {
  /** The user's stdin ended: the task should read end-of-file. */
  onStdinEnd(): void;
  /** The user's terminal changed size (terminal mode). */
  onResize(columns: number, rows: number): void;
  /** A signal was sent to this program: forward it to the task. */
  onSignal(signal: number): void;
}

/** The user's terminal, connected to a task's stdio through FIFOs. */
export interface AttachedConsole {
  /** The FIFO paths (and terminal flag) to create the task with. */
  readonly stdio: Stdio;
  /** connect: starts copying; call after Create (the shim then holds the FIFOs). */
  connect(events: ConsoleEvents): void;
  /** outputDone: resolves once the task's output reached end-of-file. */
  outputDone(): Promise<void>;
  /** close: restores the terminal and stops copying. */
  close(): void;
}

export interface Console {
  /** attach: makes the FIFOs in `dir` (a run's private directory). */
  attach(terminal: boolean, dir: string): Promise<AttachedConsole>;
}
