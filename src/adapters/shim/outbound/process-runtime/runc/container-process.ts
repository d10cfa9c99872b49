import { ProcessExit } from '../../../../../domain/shim/exit-status';
import { Stdio } from '../../../../../domain/shim/task-process';
import { AdoptedProcess, ExitListener } from '../../../../../application/shim/ports/process-runtime.port';
import { ContainerIo, openContainerIo } from './container-io';
import { isBinaryLogUri } from '../stdio/stdio-target';
import { StdioOwner } from '../stdio/direct-stdio';
import { LaunchedProcess, Launcher, ProcessLaunch } from './launcher';

/** What runs before the init's exit is reported (RuncContainer: an OOM kill told first, then what is left of it ended). */
export interface BeforeExitReport {
  beforeExitReport(): Promise<void>;
}

/**
 * One process of a container, init or exec: its stdio, its pid once its launcher has made it,
 * and its exit, which the launcher tells it (`report`), reported once after its output was
 * handed on.
 */
export class ContainerProcess implements LaunchedProcess {
  private opened: ContainerIo | undefined;
  /** CloseIO came before the stdio was opened: it is closed as it opens. */
  private stdinClosed = false;
  private currentPid = 0;
  private started = 0;
  /** Made (launched or taken over): its exit is awaited at Delete. */
  private made = false;
  private exitReported!: () => void;
  private readonly reported = new Promise<void>((resolve) => (this.exitReported = resolve));
  /** Removed by containerd's `delete` (forget): its exit is nobody's to report here. */
  private forgotten = false;

  constructor(
    /** The stdio strings it was made with (criu-stdio.ts names their files to criu). */
    readonly stdio: Stdio,
    readonly subject: string,
    /** The pod keeper's key: the task's id, or `<task id>/<exec id>`. */
    readonly key: string,
    private readonly launcher: Launcher,
    private readonly onExit: ExitListener,
    private readonly options: {
      beforeExit?: BeforeExitReport;
      consoleSized?: boolean;
      adopted?: boolean;
      openAtLaunch?: boolean;
      ioOwner?: StdioOwner;
    } = {},
  ) {
    if (options.openAtLaunch !== true) this.opened = this.openIo();
  }

  get pid(): number {
    return this.currentPid;
  }

  /** Its stdout is a `binary://` log URI: a logger is kept beside it (stdio/binary-log.ts). */
  get logged(): boolean {
    return isBinaryLogUri(this.stdio.stdout);
  }

  /**
   * The process's stdio. With `openAtLaunch` (an exec) it is opened when the process is made,
   * as containerd's runc shim opens an exec's: a serving process killed between Exec and Start
   * then takes no writer of the client's FIFOs with it, which would end the client's reading
   * before the exec has run.
   */
  get io(): ContainerIo {
    if (this.opened === undefined) {
      this.opened = this.openIo();
      if (this.stdinClosed) this.opened.closeStdin();
    }
    return this.opened;
  }

  closeStdin(): void {
    if (this.opened === undefined) this.stdinClosed = true;
    else this.opened.closeStdin();
  }

  /** Frees the stdio, if it was opened. */
  releaseIo(): void {
    this.opened?.release();
  }

  /** The process's start time (/proc/<pid>/stat), which a record keeps to tell it from a reused pid. */
  get startTime(): number {
    return this.started;
  }

  /**
   * Takes over a process a previous serving process made: its stdio is opened again as
   * the shim held it (FIFO holders, the stdin writer), and its exit is watched by its launcher.
   */
  adopt(process: AdoptedProcess): void {
    this.currentPid = process.pid;
    this.started = process.startTime;
    this.made = true;
    this.launcher.watchAdopted(process, this.key, this);
  }

  /**
   * Makes the process (`create`, `exec --detach`, `restore --detach`) through `launcher`, the
   * task's unless told otherwise (a restore runs here: RuncTaskHandle.start), which watches it.
   */
  async launch(launch: ProcessLaunch, launcher: Launcher = this.launcher): Promise<number> {
    try {
      const made = await launcher.launch(launch, this.io, this);
      this.currentPid = made.pid;
      this.started = made.startTime;
      this.made = true;
      this.io.afterRunc();
      await this.io.sizeTerminal();
    } catch (err) {
      // The caller removes a process runc made; its exit, if watched, still gets reported.
      this.io.release();
      throw err;
    }
    return this.currentPid;
  }

  /** Resolves once the exit has been reported; undefined while no process was made. */
  get exited(): Promise<void> | undefined {
    return this.made ? this.reported : undefined;
  }

  /** Its container was removed by another (ProcessHandle.forget): its stdio goes, its exit is never reported. */
  forget(): void {
    this.forgotten = true;
    this.releaseIo();
  }

  /** Told by its launcher, once: the exit is reported after the init's container is tidied and the output handed on. */
  async report(exit: ProcessExit): Promise<void> {
    if (!this.forgotten) {
      await this.options.beforeExit?.beforeExitReport().catch(() => undefined);
      await this.io.finish();
      if (!this.forgotten) await this.onExit(exit);
    }
    this.exitReported();
  }

  /**
   * Its stdio (container-io.ts), kept by its launcher's keeper if it has one. A process taken
   * over has its copies of the descriptors already; when its FIFOs or files are gone (the client
   * went away meanwhile) it is taken over without them.
   */
  private openIo(): ContainerIo {
    const { stdio, subject, options } = this;
    const keeper = this.launcher.keeper;
    const kept = keeper && { keeper, key: this.key };
    const sized = options.consoleSized;
    if (options.adopted !== true) return openContainerIo(stdio, subject, { sized, kept, ioOwner: options.ioOwner });
    let io: ContainerIo;
    try {
      io = openContainerIo(stdio, subject, { sized, adopted: true, kept });
    } catch {
      const none = { stdin: '', stdout: '', stderr: '', terminal: stdio.terminal };
      io = openContainerIo(none, subject, { adopted: true, kept });
    }
    io.afterRunc();
    return io;
  }
}
