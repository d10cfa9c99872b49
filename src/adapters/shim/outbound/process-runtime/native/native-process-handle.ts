import { ProcessExit } from '../../../../../domain/shim/exit-status';
import { ExitListener, ProcessHandle } from '../../../../../application/shim/ports/process-runtime.port';
import { readyForSignal } from './ready-for-signal';
import { launch, LaunchedProcess, LaunchPlan } from './launch';
import { signalProcess } from '../signal-process';
import { StartGate } from './start-gate';

const SIGKILL = 9;

/**
 * One host process. An init is launched at Create behind its start gate; an exec
 * is launched at Start. The exit is reported once, after stdio was set to drain.
 */
export class NativeProcessHandle implements ProcessHandle {
  private launched: LaunchedProcess | undefined;
  private started = false;

  constructor(
    private readonly plan: LaunchPlan,
    private readonly onExit: ExitListener,
    /** An init's start gate; an exec has none. */
    private readonly gate?: StartGate,
  ) {
    // An init exists from Create on, waiting behind its gate with its final pid.
    if (this.gate === undefined) return;
    try {
      this.launch();
    } catch (err) {
      this.gate.close();
      throw err;
    }
  }

  get pid(): number {
    return this.launched?.pid ?? 0;
  }

  get subject(): string {
    return this.plan.subject;
  }

  get exited(): Promise<ProcessExit> | undefined {
    return this.launched?.exited;
  }

  async start(): Promise<number> {
    this.started = true;
    if (this.gate !== undefined) this.gate.open();
    else this.launch();
    return this.pid;
  }

  async kill(signal: number): Promise<void> {
    await readyForSignal(signal, [this.pid]);
    signalProcess(this.pid, signal, this.plan.subject);
  }

  async resizePty(width: number, height: number): Promise<void> {
    this.launched?.resize(width, height);
  }

  async closeStdin(): Promise<void> {
    this.launched?.closeStdin();
  }

  async delete(): Promise<void> {
    const launched = this.launched;
    if (launched !== undefined) {
      // A gated init that never started is killed here, as `runc delete` does.
      if (!this.started) signalProcessQuietly(launched.pid);
      await launched.exited;
      launched.releaseStdio();
    }
    this.gate?.close();
  }

  private launch(): void {
    const launched = launch(this.plan, this.gate);
    this.launched = launched;
    void launched.exited.then((exit) => {
      launched.finishStdio();
      this.gate?.close();
      this.onExit(exit);
    });
  }
}

function signalProcessQuietly(pid: number): void {
  try {
    process.kill(pid, SIGKILL);
  } catch {
    // already gone
  }
}
