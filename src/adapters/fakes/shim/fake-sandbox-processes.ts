import type { ProcessExit } from '../../../domain/shim/exit-status';
import type { SandboxSpec } from '../../../domain/shim/sandbox';
import type { SandboxProcesses } from '../../../application/shim/ports/sandbox-processes.port';

/**
 * Sandbox processes in memory, for the application's tests: each start gets the next pid,
 * a signal ends it as the kernel would (SIGTERM too, unless `ignoreTerm`), and `die` ends one
 * of its own accord. What it was asked is kept for the tests to read.
 */
export class FakeSandboxProcesses implements SandboxProcesses {
  readonly started: Array<{ spec: SandboxSpec; bundle: string; pid: number }> = [];
  readonly signals: Array<{ pid: number; signal: string }> = [];
  readonly released: string[] = [];
  readonly dropped: string[] = [];
  readonly adopted: Array<{ spec: SandboxSpec; bundle: string; pid: number }> = [];
  /** Starts fail with this error while it is set. */
  failWith?: Error;
  ignoreTerm = false;
  private nextPid = 4000;
  private readonly running = new Map<number, (exit: ProcessExit) => Promise<void>>();

  async start(spec: SandboxSpec, bundle: string, exited: (exit: ProcessExit) => Promise<void>): Promise<number> {
    if (this.failWith !== undefined) throw this.failWith;
    const pid = this.nextPid++;
    this.started.push({ spec, bundle, pid });
    this.running.set(pid, exited);
    return pid;
  }

  /** A process a previous service started, running until it dies or is signalled. */
  adopt(spec: SandboxSpec, bundle: string, pid: number, exited: (exit: ProcessExit) => Promise<void>): void {
    this.adopted.push({ spec, bundle, pid });
    this.running.set(pid, exited);
  }

  signal(pid: number, signal: 'SIGTERM' | 'SIGKILL'): void {
    this.signals.push({ pid, signal });
    if (signal === 'SIGTERM' && this.ignoreTerm) return;
    void this.die(pid, { code: null, signal: signal === 'SIGKILL' ? 9 : 15 });
  }

  async release(spec: SandboxSpec): Promise<void> {
    this.released.push(spec.id);
  }

  /** Watched no more: its exit, if it ever came, would be told to nobody. */
  drop(spec: SandboxSpec): void {
    this.dropped.push(spec.id);
    for (const started of this.started) if (started.spec.id === spec.id) this.running.delete(started.pid);
    for (const adopted of this.adopted) if (adopted.spec.id === spec.id) this.running.delete(adopted.pid);
  }

  /** How many processes it watches: none once each is ended, released or dropped. */
  get watched(): number {
    return this.running.size;
  }

  /** The process `pid` ends with `exit`, told once. */
  async die(pid: number, exit: ProcessExit): Promise<void> {
    const exited = this.running.get(pid);
    this.running.delete(pid);
    await exited?.(exit);
  }

  isRunning(pid: number): boolean {
    return this.running.has(pid);
  }
}
