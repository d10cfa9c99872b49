import { existsSync, rmdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { FailedPreconditionError, NotFoundError } from '../../../../../domain/shared/errors';
import { LiveStatus } from '../../../../../application/shim/ports/process-runtime.port';
import { Reaper } from '../../../os/reaper';
import { ContainerCgroup } from './container-cgroup';
import { OomWatch } from './oom-watch';
import { ChildStdio } from '../stdio/direct-stdio';
import { RuncCli, RuncFailure } from './runc-cli';
import { lastLogError, logOffset } from './runc-log';
import { LaunchFd } from '../../keeper/keeper-control';
import { exitOfWaitStatus, KeptExitListener, loggerKey, PodKeepers } from '../../keeper/pod-keepers';
import { BinaryLog } from '../stdio/binary-log';
import { StdioOwner } from '../stdio/direct-stdio';

/** A task served through a pod keeper: the keepers' connections and its pod socket. */
export interface KeeperLink {
  readonly keepers: PodKeepers;
  readonly pod: string;
}
import { fromRuncFailure, RuncAction } from './runc-errors';
import { INIT_PID_FILE, OCI_RUNTIME_FILE } from '../task-layout';

const SIGKILL = '9';
/** runc's exec fifo and state file in a container's state directory (libcontainer's execFifoFilename, stateFilename). */
const EXEC_FIFO = 'exec.fifo';
const STATE_FILE = 'state.json';
/** What `runc start` answers when the init died before it could be let go (libcontainer's exec()). */
const INIT_DEAD = 'container process is already dead';

/** One runc container as the shim addresses it: its id, bundle, per-task directory and runc. */
/** What a process run under the pod keeper needs besides runc's arguments. */
interface KeptLaunch {
  pidFile: string;
  /** Where the keeper binds the console socket of a terminal ('' without one). */
  consoleSocket?: string;
  fds: readonly LaunchFd[];
  subject?: string;
  onExit: KeptExitListener;
}

export class RuncContainer {
  readonly subject: string;
  /** Learnt once runc has made the init (undefined before, or when it could not be read). */
  cgroup: ContainerCgroup | undefined;
  /** The watch of its OOM kills, once started (oom-watch.ts). */
  oomWatch: OomWatch | undefined;
  /** Who its processes' stdio FIFOs are given to (the runtime options' IoUid and IoGid), when not root. */
  ioOwner: StdioOwner | undefined;

  constructor(
    readonly id: string,
    readonly bundle: string,
    /** <state-dir>/tasks/<id>: pid files, exec process files, criu work directories. */
    readonly taskDir: string,
    readonly ownPidNamespace: boolean,
    private readonly cli: RuncCli,
    readonly reaper: Reaper,
    /** The task's pod keeper, when its `runc create` and `runc exec` run there (under containerd, unless SKIFF_KEEPER=0). */
    readonly keeper?: KeeperLink,
  ) {
    this.subject = `task ${JSON.stringify(id)}`;
  }

  /**
   * Runs `runc <args>` (create, exec --detach) as a child of the task's pod keeper, which keeps
   * the process the pid file names under `key` and tells its exit to `onExit`; resolves with its pid.
   */
  async launchKept(
    action: RuncAction,
    key: string,
    args: readonly string[],
    launch: KeptLaunch & {
      /** A `binary://` stdout's logger, started first; CONTAINER_ID is `loggerId` (the exec id for an exec, as the runc shim's). */
      logger?: { log: BinaryLog; loggerId: string };
    },
  ): Promise<number> {
    const keeper = this.keeper as KeeperLink;
    const logger = launch.logger;
    if (logger === undefined) return this.launchKeptProcess(action, key, args, launch);
    await this.launchLogger(key, logger.log, logger.loggerId, launch.subject ?? this.subject);
    try {
      return await this.launchKeptProcess(action, key, args, launch);
    } catch (err) {
      await keeper.keepers.release(keeper.pod, loggerKey(key));
      throw err;
    }
  }

  /**
   * Starts a log URI's logger as the pod keeper's child (docs/containerd.md, "Log URIs"), kept
   * under its own key until the process's Delete ends it, and waits for its readiness.
   */
  private async launchLogger(key: string, log: BinaryLog, loggerId: string, subject: string): Promise<void> {
    const keeper = this.keeper as KeeperLink;
    // containerd's bundles are <state>/io.containerd.runtime.v2.task/<namespace>/<id>.
    const { argv, env } = log.launch(loggerId, basename(dirname(this.bundle)));
    const launched = await keeper.keepers.launch(
      keeper.pod,
      { key: loggerKey(key), argv, env, pidFile: '', fds: log.fds },
      async () => undefined,
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
      await keeper.keepers.release(keeper.pod, loggerKey(key));
      throw err;
    }
  }

  private async launchKeptProcess(
    action: RuncAction,
    key: string,
    args: readonly string[],
    launch: KeptLaunch,
  ): Promise<number> {
    const keeper = this.keeper as KeeperLink;
    const { argv, log } = this.cli.commandLine({ args, bundle: this.bundle });
    const offset = logOffset(log);
    const launched = await keeper.keepers.launch(
      keeper.pod,
      { key, argv, pidFile: launch.pidFile, consoleSocket: launch.consoleSocket, fds: launch.fds },
      launch.onExit,
    );
    if (launched.error === '' && launched.status === 0 && launched.pid > 0) return launched.pid;
    const exit = launched.status >= 0 ? exitOfWaitStatus(launched.status) : undefined;
    const detail =
      launched.error !== ''
        ? launched.error
        : `runc exited with ${exit?.signal != null ? `signal ${exit.signal}` : `code ${exit?.code ?? -1}`}`;
    const message = launched.error !== '' ? detail : (lastLogError(log, offset) ?? detail);
    throw fromRuncFailure(new RuncFailure(args[0], message), action, launch.subject ?? this.subject);
  }

  /**
   * What runc would answer for this container while its init lives, read without running
   * runc (a takeover reads it for every task at once): runc keeps `exec.fifo` in the
   * container's state directory from `create` until `start` (libcontainer's exec fifo), and a
   * paused container is one its cgroup's freezer holds.
   */
  liveStatus(): LiveStatus {
    if (existsSync(this.execFifo)) return 'created';
    return this.cgroup?.isFrozen() === true ? 'paused' : 'running';
  }

  /**
   * Lets the created init run the container's program. `runc start` is the exec fifo's
   * handshake and nothing more (docs/runtimes.md, "Start without a runc process") unless the
   * spec has poststart hooks (runc after 1.4 runs them at `start`). Behind a pod keeper
   * the keeper, the init's parent, does the handshake (`S`), which spares a runc process (~3 ms
   * of every Start) and outlives this process; otherwise, or for a container that libcontainer
   * did not make (no `state.json` beside the fifo: crun's init reads its fifo instead of
   * writing it), the runtime's own `start` runs.
   */
  async start(poststartHooks: boolean): Promise<void> {
    const libcontainer = existsSync(join(this.cli.root, this.id, STATE_FILE));
    if (this.keeper !== undefined && !poststartHooks && libcontainer) {
      const { outcome, error } = await this.keeper.keepers.start(this.keeper.pod, this.id, this.execFifo);
      if (outcome === 'started') return;
      if (outcome === 'dead') throw fromRuncFailure(new RuncFailure('start', INIT_DEAD), 'start', this.subject);
      // Not a `runc start` beside it: one racing the keeper's reader for the byte would wait for ever.
      if (outcome === 'failed')
        throw new FailedPreconditionError(
          `${this.subject}: its pod keeper could not start it: ${error}`,
          'KEEPER.START',
        );
      // No fifo: runc's own start says what the container is.
    }
    await this.run('start', ['start', this.id]);
  }

  private get execFifo(): string {
    return join(this.cli.root, this.id, EXEC_FIFO);
  }

  /** Runs `runc <args>` for this container; a failure becomes the domain error `action` implies. */
  async run(
    action: RuncAction,
    args: readonly string[],
    options: {
      stdio?: readonly [ChildStdio, ChildStdio, ChildStdio];
      input?: string;
      subject?: string;
      env?: Readonly<Record<string, string>>;
    } = {},
  ): Promise<string> {
    try {
      return await this.cli.run({
        args,
        bundle: this.bundle,
        stdio: options.stdio,
        input: options.input,
        env: options.env,
      });
    } catch (err) {
      throw fromRuncFailure(err, action, options.subject ?? this.subject);
    }
  }

  /** What is done after the init exited and before its exit is reported: an OOM kill told first, then killRemaining. */
  async beforeExitReport(): Promise<void> {
    this.oomWatch?.check();
    await this.killRemaining();
  }

  /**
   * After the init exited: without its own pid namespace nothing ends the container's
   * other processes, so they get SIGKILL through the cgroup (containerd's ShouldKillAllOnExit).
   * `runc kill --all` signals what the cgroup lists; when it lists nothing (a container of
   * one process, the common case) the runc call, ~5 ms, is spared.
   */
  async killRemaining(): Promise<void> {
    if (this.ownPidNamespace || this.cgroup?.isEmpty() === true) return;
    await this.run('kill', ['kill', '--all', this.id, SIGKILL]);
  }

  /**
   * Removes the task directory. It nearly always holds only the init's pid file and the
   * OCI runtime record: three system calls instead of rmSync's walk (lstat, readdir, ...);
   * anything more (exec files, criu work directories) goes the long way.
   */
  removeFiles(): void {
    rmSync(join(this.taskDir, INIT_PID_FILE), { force: true });
    rmSync(join(this.taskDir, OCI_RUNTIME_FILE), { force: true });
    try {
      rmdirSync(this.taskDir);
    } catch {
      rmSync(this.taskDir, { recursive: true, force: true });
    }
  }

  /** `runc delete --force`: removes the container (killing a created init) and its cgroup; gone already is fine. */
  async remove(): Promise<void> {
    try {
      await this.run('delete', ['delete', '--force', this.id]);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
  }
}
