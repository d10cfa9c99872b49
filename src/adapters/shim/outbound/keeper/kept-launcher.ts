import { basename, dirname } from 'node:path';
import { FailedPreconditionError } from '../../../../domain/shared/errors';
import { AdoptedProcess } from '../../../../application/shim/ports/process-runtime.port';
import { readProcStat } from '../../os/proc-fs';
import { BinaryLog } from '../process-runtime/stdio/binary-log';
import { LaunchedProcess, Launcher, LaunchIo, ProcessLaunch, StdioKeeper } from '../process-runtime/runc/launcher';
import { lastLogError, logOffset, RuncFailure } from '../process-runtime/runc/runc-cli';
import { fromRuncFailure } from '../process-runtime/runc/runc-errors';
import { ExitReport, exitOfWaitStatus, loggerKey, PodKeepers } from './pod-keepers';

/** What `runc start` answers when the init died before it could be let go (libcontainer's exec()). */
const INIT_DEAD = 'container process is already dead';

/** A logger's exit is nobody's to report: it ends at its process's Delete (docs/keeper-protocol.md, `D`). */
const UNREPORTED: ExitReport = { report: async () => undefined };

/**
 * A task served through its pod keeper (docs/keeper-protocol.md): the keepers' connections and
 * the task's pod socket, the link every kept call of the task goes by. Its processes are the
 * keeper's children (`L`), so they, their terminals and their loggers outlive this serving
 * process; the keeper tells their exits (`E`), lets a created init run (`S`), closes stdin
 * (`C`) and lets a key go (`D`).
 */
export class KeptLauncher implements Launcher, StdioKeeper {
  readonly keeper: StdioKeeper = this;

  constructor(
    readonly keepers: PodKeepers,
    readonly pod: string,
  ) {}

  /**
   * Runs `runc <args>` as a child of the keeper, which keeps the process the pid file names under
   * its key; a binary:// stdout's logger is started first, under its own key, and let go again
   * if the process is not made.
   */
  async launch(launch: ProcessLaunch, io: LaunchIo, process: LaunchedProcess): Promise<AdoptedProcess> {
    const logger = io.logger;
    if (logger !== undefined) await this.launchLogger(process.key, logger, launch, process.subject);
    let pid: number;
    try {
      pid = await this.launchProcess(launch, io, process);
    } catch (err) {
      if (logger !== undefined) await this.keepers.release(this.pod, loggerKey(process.key));
      throw err;
    }
    return { pid, startTime: readProcStat(pid)?.startTicks ?? 0 };
  }

  watchAdopted(_process: AdoptedProcess, key: string, exits: ExitReport): void {
    // The keeper is its parent: its `E` has the real status, even of an exit during the outage.
    this.keepers.watchAdopted(this.pod, key, exits);
  }

  /** `S`: the keeper, the init's parent, does runc's start handshake, which spares a runc process. */
  async start(key: string, execFifo: string, subject: string): Promise<boolean> {
    const { outcome, error } = await this.keepers.start(this.pod, key, execFifo);
    if (outcome === 'started') return true;
    if (outcome === 'dead') throw fromRuncFailure(new RuncFailure('start', INIT_DEAD), 'start', subject);
    // Not a `runc start` beside it: one racing the keeper's reader for the byte would wait for ever.
    if (outcome === 'failed')
      throw new FailedPreconditionError(`${subject}: its pod keeper could not start it: ${error}`, 'KEEPER.START');
    // No fifo: runc's own start says what the container is.
    return false;
  }

  resize(key: string, width: number, height: number, subject: string): Promise<void> {
    return this.keepers.resize(this.pod, key, width, height, subject);
  }

  closeStdin(key: string): Promise<void> {
    return this.keepers.closeStdin(this.pod, key);
  }

  /** Its logger ends with it, as the runc shim's at Delete (SIGTERM: docs/keeper-protocol.md, `D`). */
  async release(key: string, logged: boolean): Promise<void> {
    await this.keepers.release(this.pod, key);
    if (logged) await this.keepers.release(this.pod, loggerKey(key));
  }

  drop(key: string, logged: boolean): void {
    this.keepers.drop(this.pod, key);
    if (logged) this.keepers.drop(this.pod, loggerKey(key));
  }

  /**
   * The keeper may still be launching it: the key is released as soon as the keeper's control
   * connection comes, and the keeper ends what that launch makes, its output FIFO's holder with
   * it, so the client, answered UNAVAILABLE, reads its end.
   */
  cancelStart(key: string): void {
    for (const each of [key, loggerKey(key)]) this.keepers.releaseOnConnect(this.pod, each);
  }

  /**
   * Starts a log URI's logger as the keeper's child (docs/containerd.md, "Log URIs"), kept under
   * its own key until the process's Delete ends it, and waits for its readiness.
   */
  private async launchLogger(key: string, log: BinaryLog, launch: ProcessLaunch, subject: string): Promise<void> {
    // containerd's bundles are <state>/io.containerd.runtime.v2.task/<namespace>/<id>.
    const { argv, env } = log.launch(launch.loggerId, basename(dirname(launch.bundle)));
    const launched = await this.keepers.launch(
      this.pod,
      { key: loggerKey(key), argv, env, pidFile: '', fds: log.fds },
      UNREPORTED,
    );
    if (launched.error !== '' || launched.pid <= 0) {
      log.release();
      throw new FailedPreconditionError(
        `${subject}: its pod keeper could not start the logger ${log.uri.path}: ${launched.error}`,
        'STDIO.BINARY_START',
      );
    }
    try {
      await log.ready(subject);
    } catch (err) {
      // A binary-v2:// logger that never said ready: the keeper lets it go, as the runc shim kills its logger.
      log.release();
      await this.keepers.release(this.pod, loggerKey(key));
      throw err;
    }
  }

  private async launchProcess(launch: ProcessLaunch, io: LaunchIo, process: LaunchedProcess): Promise<number> {
    const args = [...launch.args, ...io.runcArgs, launch.container];
    const { argv, log } = launch.cli.commandLine({ args, bundle: launch.bundle });
    const offset = logOffset(log);
    const launched = await this.keepers.launch(
      this.pod,
      { key: process.key, argv, pidFile: launch.pidFile, consoleSocket: io.keptConsole, fds: io.keptFds },
      process,
    );
    if (launched.error === '' && launched.status === 0 && launched.pid > 0) return launched.pid;
    const exit = launched.status >= 0 ? exitOfWaitStatus(launched.status) : undefined;
    const detail =
      launched.error !== ''
        ? launched.error
        : `runc exited with ${exit?.signal != null ? `signal ${exit.signal}` : `code ${exit?.code ?? -1}`}`;
    const message = launched.error !== '' ? detail : (lastLogError(log, offset) ?? detail);
    throw fromRuncFailure(new RuncFailure(args[0], message), launch.action, process.subject);
  }
}
