import type { ServiceIdentifier } from 'inversify';
import type { ProcessExit } from '../../../domain/shim/exit-status';
import type { SandboxSpec } from '../../../domain/shim/sandbox';

export const SANDBOX_PROCESSES: ServiceIdentifier<SandboxProcesses> = Symbol('SandboxProcesses');

/**
 * The sandbox processes of containerd's Sandbox API (docs/sandbox-api.md): each holds one pod's
 * namespaces, a child of the pod's keeper, so it outlives the serving process as the pod's
 * containers do.
 */
export interface SandboxProcesses {
  /**
   * Starts the sandbox process of `spec` for the sandbox bundle `bundle`; resolves its host pid
   * once it holds the namespaces. `exited` is told its end, once.
   */
  start(spec: SandboxSpec, bundle: string, exited: (exit: ProcessExit) => Promise<void>): Promise<number>;
  /**
   * Watches the sandbox process `pid` a previous serving process started (a crash, a hand-over):
   * `exited` is told its end, once, or 255 if its keeper no longer holds it.
   */
  adopt(spec: SandboxSpec, bundle: string, pid: number, exited: (exit: ProcessExit) => Promise<void>): void;
  /** Signals it while it runs (SIGTERM, SIGKILL). */
  signal(pid: number, signal: 'SIGTERM' | 'SIGKILL'): void;
  /** Forgets it: its keeper holds it no more. */
  release(spec: SandboxSpec, bundle: string): Promise<void>;
  /** Stops watching it, at once, without asking its keeper (which died: containerd's `delete` ended the process). */
  drop(spec: SandboxSpec, bundle: string): void;
}
