import { readPidFile } from '../../../os/pid-file';
import { InternalError } from '../../../../../domain/shared/errors';
import { ProcessExit } from '../../../../../domain/shim/exit-status';
import { Stdio } from '../../../../../domain/shim/task-process';
import { AdoptedProcess, ExitListener } from '../../../../../application/shim/ports/process-runtime.port';
import { watchExit } from '../../../os/exit-watch';
import { readProcStat } from '../../../os/proc-fs';
import { Reaper } from '../../../os/reaper';
import { watchAdoptedExit } from './adopted-exit';
import { ContainerIo, KeptKey } from './container-io';
import { isBinaryLogUri } from '../stdio/binary-log';
import { StdioOwner } from '../stdio/direct-stdio';
import { KeptExitListener } from '../../keeper/pod-keepers';

/** Runs before an exit is reported (the init's: end what is left of a container without its own pid namespace). */
export type BeforeExitReport = () => Promise<void>;

/**
 * One process of a container, init or exec: its stdio, its pid once a runc call has made
 * it, and its exit, reported once after its output was handed on.
 */
export class ContainerProcess {
  private opened: ContainerIo | undefined;
  private readonly openIo: () => ContainerIo;
  /** CloseIO came before the stdio was opened: it is closed as it opens. */
  private stdinClosed = false;
  private currentPid = 0;
  private started = 0;
  private exitSeen: Promise<void> | undefined;
  private readonly beforeExitReport: BeforeExitReport;
  /** Removed by containerd's `delete` (forget): its exit is nobody's to report here. */
  private forgotten = false;
  /** Its stdout is a `binary://` log URI: a logger is kept beside it (stdio/binary-log.ts). */
  readonly logged: boolean;

  constructor(
    stdio: Stdio,
    readonly subject: string,
    private readonly reaper: Reaper,
    private readonly onExit: ExitListener,
    options: {
      beforeExitReport?: BeforeExitReport;
      consoleSized?: boolean;
      adopted?: boolean;
      keeper?: KeptKey;
      openAtLaunch?: boolean;
      ioOwner?: StdioOwner;
    } = {},
  ) {
    this.logged = isBinaryLogUri(stdio.stdout);
    this.openIo = () => ContainerProcess.openIo(stdio, subject, options);
    if (options.openAtLaunch !== true) this.opened = this.openIo();
    this.beforeExitReport = options.beforeExitReport ?? (async () => undefined);
  }

  get pid(): number {
    return this.currentPid;
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
   * the shim holds it (FIFO holders, the stdin writer), and its exit is watched from outside.
   */
  adopt(process: AdoptedProcess, watchKept?: (listener: KeptExitListener) => void): void {
    this.currentPid = process.pid;
    this.started = process.startTime;
    this.exitSeen = new Promise((resolve) => {
      // Its pod keeper is its parent: its `E` has the real status, even of an exit during the outage.
      if (watchKept !== undefined) watchKept((exit) => this.report(exit).then(resolve));
      else watchAdoptedExit(process.pid, process.startTime, (exit) => void this.report(exit).then(resolve));
    });
  }

  /**
   * Makes the process through the task's pod keeper (runc-container.ts, launchKept): the
   * keeper is its parent and tells its exit, so nothing is re-parented here.
   */
  async launchKept(makeProcess: (io: ContainerIo, onExit: KeptExitListener) => Promise<number>): Promise<number> {
    let exited!: () => void;
    const seen = new Promise<void>((resolve) => (exited = resolve));
    try {
      this.currentPid = await makeProcess(this.io, (exit) => this.report(exit).then(exited));
      this.started = readProcStat(this.currentPid)?.startTicks ?? 0;
      this.exitSeen = seen;
      this.io.afterRunc();
      await this.io.sizeKept();
    } catch (err) {
      this.io.release();
      throw err;
    }
    return this.currentPid;
  }

  /** Resolves once the exit has been reported; undefined while no process was made. */
  get exited(): Promise<void> | undefined {
    return this.exitSeen;
  }

  /**
   * Runs the runc call that makes the process (`create`, `exec --detach`, `restore
   * --detach`), then adopts it: reads its pid file and watches it. The orphan sweep is
   * held off meanwhile, since the process is re-parented to the shim as runc exits.
   */
  async launch(pidFile: string, makeProcess: (io: ContainerIo) => Promise<unknown>): Promise<number> {
    try {
      await this.reaper.adopting(async () => {
        await makeProcess(this.io);
        this.currentPid = runcPid(pidFile, this.subject);
        this.started = readProcStat(this.currentPid)?.startTicks ?? 0;
        this.exitSeen = new Promise((resolve) =>
          watchExit(this.currentPid, (exit) => void this.report(exit).then(resolve)),
        );
      });
      this.io.afterRunc();
    } catch (err) {
      // The caller removes a process runc made; its exit, if watched, still gets reported.
      this.io.release();
      throw err;
    }
    return this.currentPid;
  }

  /**
   * An adopted process's stdio as the shim held it; when its FIFOs or files are gone
   * (the client went away meanwhile) it is taken over without them.
   */
  private static openIo(
    stdio: Stdio,
    subject: string,
    options: { consoleSized?: boolean; adopted?: boolean; keeper?: KeptKey; ioOwner?: StdioOwner },
  ): ContainerIo {
    const { keeper, adopted, ioOwner } = options;
    if (!adopted) return new ContainerIo(stdio, subject, { sized: options.consoleSized, keeper, ioOwner });
    let io: ContainerIo;
    try {
      io = new ContainerIo(stdio, subject, { sized: options.consoleSized, adopted, keeper });
    } catch {
      const none = { stdin: '', stdout: '', stderr: '', terminal: stdio.terminal };
      io = new ContainerIo(none, subject, { adopted, keeper });
    }
    // What would have been the process's own descriptors: it has its copies already.
    io.afterRunc();
    return io;
  }

  /** Its container was removed by another (ProcessHandle.forget): its stdio goes, its exit is never reported. */
  forget(): void {
    this.forgotten = true;
    this.releaseIo();
  }

  private async report(exit: ProcessExit): Promise<void> {
    if (this.forgotten) return;
    await this.beforeExitReport().catch(() => undefined);
    await this.io.finish();
    if (!this.forgotten) await this.onExit(exit);
  }
}

function runcPid(path: string, subject: string): number {
  const pid = readPidFile(path);
  if (pid === undefined) throw new InternalError(`${subject}: runc wrote no pid to ${path}`, 'RUNC.PID_FILE');
  return pid;
}
