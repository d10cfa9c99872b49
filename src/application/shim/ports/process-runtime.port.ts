import { ProcessStatus } from '../../../domain/shim/lifecycle';
import { ProcessExit } from '../../../domain/shim/exit-status';
import { OciProcess } from '../../../domain/shim/oci-spec';
import { Stdio } from '../../../domain/shim/task-process';
import { TaskStats } from '../../../domain/shim/task-stats';

export const PROCESS_RUNTIME = Symbol('ProcessRuntime');

/** A rootfs mount (types.Mount): mounted onto the bundle's rootfs before create. */
export interface RootfsMount {
  readonly type: string;
  readonly source: string;
  readonly target: string;
  readonly options: readonly string[];
}

export interface CreateSpec {
  readonly id: string;
  readonly bundle: string;
  readonly stdio: Stdio;
  readonly rootfs: readonly RootfsMount[];
  /** Directory of a checkpoint to restore from; '' for a fresh start. */
  readonly checkpoint: string;
  /** Runtime options as the client sent them (an Any), for the runtime to read or ignore. */
  readonly options?: { readonly typeUrl: string; readonly value: Uint8Array };
}

export interface ExecSpec {
  readonly execId: string;
  readonly stdio: Stdio;
  readonly process: OciProcess;
  /** The OCI Process JSON object as the client sent it (runc passes on what skiff does not read). */
  readonly processJson: Readonly<Record<string, unknown>>;
}

/**
 * Called once, when the process has exited and been reaped. Resolves once the shim has
 * recorded the exit: a runtime that keeps exits for a restarted serving process (a pod
 * keeper) may let go of it then, not before.
 */
export type ExitListener = (exit: ProcessExit) => void | Promise<void>;

/** One running process of a task, as Pids reports it. */
export interface ProcessPid {
  readonly pid: number;
}

/** A process the runtime made: the init of a task or an exec. */
export interface ProcessHandle {
  /** pid: the process id; 0 for an exec that was not started. */
  readonly pid: number;
  /**
   * startTime: when the process started as the OS counts it (Linux: /proc/<pid>/stat's
   * starttime), which tells it from a later process that reuses its pid; absent where unknown.
   */
  readonly startTime?: number;
  /** start: runs the program (the init's pid does not change); resolves to the pid. */
  start(): Promise<number>;
  /** kill: sends `signal` to this process only. */
  kill(signal: number): Promise<void>;
  /** resizePty: sets the terminal's size; FailedPrecondition when it has no terminal. */
  resizePty(width: number, height: number): Promise<void>;
  /** closeStdin: stops feeding stdin so the process reads end-of-file once the client's writer is gone. */
  closeStdin(): Promise<void>;
  /** delete: kills a process that never ran, waits for its exit, frees its stdio and files. */
  delete(): Promise<void>;
  /**
   * forget: another removed the process with its container (containerd's `delete` once the
   * task's pod keeper died, docs/keeper-protocol.md): free what this process holds for it (stdio,
   * exit watch, the keeper's key) and touch neither the container nor its files; its exit is
   * never reported. Where a runtime's tasks are served through pod keepers.
   */
  forget?(): void;
}

/** A task's init process plus the operations that act on the whole task. */
export interface TaskHandle extends ProcessHandle {
  /** exec: prepares an additional process in the task; nothing runs until its start. */
  exec(spec: ExecSpec, onExit: ExitListener): Promise<ProcessHandle>;
  /** killAll: sends `signal` to every process of the task. */
  killAll(signal: number): Promise<void>;
  /** pause: stops every process of the task (SIGSTOP or the cgroup freezer). */
  pause(): Promise<void>;
  /** resume: continues every process of the task. */
  resume(): Promise<void>;
  /** pids: every live process of the task. */
  pids(): Promise<ProcessPid[]>;
  stats(): Promise<TaskStats>;
  /** update: applies OCI LinuxResources; Unimplemented for what the runtime cannot apply. */
  update(resources: Record<string, unknown>): Promise<void>;
  /**
   * checkpoint: saves the task's state into `path`, as the request's options (an Any, for the
   * runtime to read: containerd.runc.v1.CheckpointOptions) ask; Unimplemented where unsupported.
   */
  checkpoint(path: string, options?: { readonly typeUrl: string; readonly value: Uint8Array }): Promise<void>;
  /**
   * adoptExec: takes over an exec a previous serving process started (`process.pid` > 0):
   * its exit is reported through onExit, at once if it is gone already. Where the runtime adopts.
   */
  adoptExec?(spec: ExecSpec, process: AdoptedProcess, onExit: ExitListener): ProcessHandle;
  /**
   * startedExec: an exec recorded as never started that the runtime shows was made (a Start
   * in flight at a crash, its record not written yet): its process, to adopt. Where the runtime adopts.
   */
  startedExec?(execId: string): AdoptedProcess | undefined;
  /**
   * cancelStart: an exec recorded as never started that the runtime does not show made: a
   * Start in flight at a crash may still be making it, for a client answered UNAVAILABLE.
   * What it makes is ended, so the exec is what its record says, and can be started again.
   * Where the runtime adopts.
   */
  cancelStart?(execId: string): void;
  /**
   * observedStatus: for a task taken over whose init still runs, what the runtime itself
   * sees it as. A record written after its reply can be one change behind (a crash in
   * between), and the runtime's view is the truth. Where the runtime adopts.
   */
  readonly observedStatus?: LiveStatus;
}

/** What a process that still runs can be: what a runtime sees of one it took over. */
export type LiveStatus = Exclude<ProcessStatus, 'stopped' | 'deleted'>;

/** A process a previous serving process made: its pid, and its start time to tell it from a reused pid. */
export interface AdoptedProcess {
  readonly pid: number;
  readonly startTime: number;
}

/** A task a previous serving process made, as it recorded it (docs/failure-domains.md). */
export interface AdoptSpec extends CreateSpec {
  /** pid 0: no process was made yet (a task restored from a checkpoint at Start). */
  readonly init: AdoptedProcess;
}

/** What the runtime tells the shim about one task, and what it asks of it. */
export interface TaskWatch {
  /** Called once, when the task's init has exited and been reaped. */
  readonly onExit: ExitListener;
  /** Where the runtime can tell: each out-of-memory kill in the task. */
  readonly onOom?: () => void;
  /**
   * The task's execs made by exec() and not yet deleted. The shim's Task is their one
   * registry: a runtime that needs them (the native runtime finds a task's processes by
   * their sessions) asks here, and keeps no list of its own.
   */
  execs(): readonly ProcessHandle[];
}

/** Where tasks come from: `native` host processes or OCI containers (runc). */
export interface ProcessRuntime {
  readonly name: string;
  /** create: makes the task's init from its bundle, with its final pid, running nothing until start. */
  create(spec: CreateSpec, watch: TaskWatch): Promise<TaskHandle>;
  /**
   * adopt: takes over a task a previous serving process made. A live init (the same process:
   * pid and start time) is watched; one that is gone is reported through watch.onExit at once,
   * with the status the runtime can still learn (an unknown one is 255). Absent where the
   * runtime cannot take tasks over.
   */
  adopt?(spec: AdoptSpec, watch: TaskWatch): Promise<TaskHandle>;
  /**
   * removeLeftover: removes what a Create cut short by the death of the serving process, before
   * its record was written, left of task `id` (a created container, its files); false when
   * nothing is left. Where the runtime adopts.
   */
  removeLeftover?(id: string): Promise<boolean>;
}
