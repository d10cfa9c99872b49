import { AdoptedProcess } from '../../../../../application/shim/ports/process-runtime.port';
import { LaunchFd } from '../../keeper/keeper-control';
import { ExitReport } from '../../keeper/pod-keepers';
import { BinaryLog } from '../stdio/binary-log';
import { ChildStdio } from '../stdio/direct-stdio';
import { RuncCli } from './runc-cli';
import { RuncAction } from './runc-errors';

/**
 * How a task's processes are made and kept: by its pod keeper, their parent, which outlives
 * this serving process (keeper/kept-launcher.ts; docs/keeper-protocol.md), or by this process,
 * their subreaper (direct-launcher.ts). RuncRuntime.launcherFor chooses one per task, from its
 * bundle, and every "kept or not" of the adapter is a method of it.
 */
export interface Launcher {
  /** The keeper that holds the processes' terminals and runs their binary:// loggers; undefined when not kept. */
  readonly keeper: StdioKeeper | undefined;
  /** Runs the runc call that makes a process with `io` and watches it: its exit goes to `process.report`. */
  launch(launch: ProcessLaunch, io: LaunchIo, process: LaunchedProcess): Promise<AdoptedProcess>;
  /** Watches a process a previous serving process made (docs/failure-domains.md). */
  watchAdopted(process: AdoptedProcess, key: string, exits: ExitReport): void;
  /** Lets a created init run without a runc process; false: runc's own `start` is to run (RuncContainer.start). */
  start(key: string, execFifo: string, subject: string): Promise<boolean>;
  /** CloseIO: what else holds the process's stdin lets go of it too. */
  closeStdin(key: string): Promise<void>;
  /** Delete: the process, and its logger when it has one, are let go. */
  release(key: string, logged: boolean): Promise<void>;
  /** Forget: as release, waiting for nothing (its container was removed by another). */
  drop(key: string, logged: boolean): void;
  /** A Start in flight at a crash: what its launch makes is ended once that can be said (RuncTaskHandle.cancelStart). */
  cancelStart(key: string): void;
}

/** What a pod keeper does for a terminal it holds: its resizes go there (`R`). */
export interface StdioKeeper {
  resize(key: string, width: number, height: number, subject: string): Promise<void>;
}

/** One runc call that makes a process: `create`, `exec --detach` or `restore --detach`. */
export interface ProcessLaunch {
  readonly action: RuncAction;
  readonly cli: RuncCli;
  readonly bundle: string;
  /** runc's arguments up to the container's id; the stdio's own (--console-socket) and the id follow. */
  readonly args: readonly string[];
  readonly container: string;
  readonly pidFile: string;
  /** A binary:// logger's CONTAINER_ID: the task's id for its init, the exec id for an exec (as the runc shim's). */
  readonly loggerId: string;
  /** Variables for runc's environment (a restore's criu: RuncTaskHandle.start). */
  readonly env?: Readonly<Record<string, string>>;
}

/** The process a launcher makes (a ContainerProcess): its key, its name in errors, where its exit goes. */
export interface LaunchedProcess extends ExitReport {
  /** The pod keeper's key: the task's id, or `<task id>/<exec id>` (docs/keeper-protocol.md). */
  readonly key: string;
  readonly subject: string;
}

/** What a launcher hands on of a process's stdio (container-io.ts): to runc itself, or to the keeper by role. */
export interface LaunchIo {
  readonly runcArgs: readonly string[];
  readonly runcStdio: readonly [ChildStdio, ChildStdio, ChildStdio];
  /** The console socket a pod keeper binds ('' without a kept terminal). */
  readonly keptConsole: string;
  readonly keptFds: readonly LaunchFd[];
  /** A binary:// stdout's logger, which the keeper starts first. */
  readonly logger: BinaryLog | undefined;
}
