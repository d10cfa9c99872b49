import { existsSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { NotFoundError } from '../../../../../domain/shared/errors';
import { LiveStatus } from '../../../../../application/shim/ports/process-runtime.port';
import { ContainerCgroup } from './container-cgroup';
import { OomWatch } from './oom-watch';
import { ChildStdio, StdioOwner } from '../stdio/direct-stdio';
import { RuncCli } from './runc-cli';
import { Launcher } from './launcher';
import { fromRuncFailure, RuncAction } from './runc-errors';
import { INIT_PID_FILE, OCI_RUNTIME_FILE } from '../task-layout';

const SIGKILL = '9';
/** runc's exec fifo and state file in a container's state directory (libcontainer's execFifoFilename, stateFilename). */
const EXEC_FIFO = 'exec.fifo';
const STATE_FILE = 'state.json';

/** One runc container as the shim addresses it: its id, bundle, per-task directory, runc and launcher. */
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
    readonly cli: RuncCli,
    /** How its processes are made and kept: by its pod keeper or by this process (RuncRuntime.launcherFor). */
    readonly launcher: Launcher,
  ) {
    this.subject = `task ${JSON.stringify(id)}`;
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
   * spec has poststart hooks (runc after 1.4 runs them at `start`). A pod keeper, the init's
   * parent, does the handshake itself (KeptLauncher.start), which spares a runc process (~3 ms of
   * every Start) and outlives this process; otherwise, or for a container that libcontainer did
   * not make (no `state.json` beside the fifo: crun's init reads its fifo instead of writing it),
   * the runtime's own `start` runs.
   */
  async start(poststartHooks: boolean): Promise<void> {
    const libcontainer = existsSync(join(this.cli.root, this.id, STATE_FILE));
    if (!poststartHooks && libcontainer && (await this.launcher.start(this.id, this.execFifo, this.subject))) return;
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
