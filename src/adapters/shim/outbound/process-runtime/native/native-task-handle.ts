import { setPriority } from 'node:os';
import { InternalError, UnimplementedError } from '../../../../../domain/shared/errors';
import {
  ExecSpec,
  ExitListener,
  ProcessPid,
  ProcessHandle,
  TaskHandle,
} from '../../../../../application/shim/ports/process-runtime.port';
import { TaskStats } from '../../../../../domain/shim/task-stats';
import { nativeAddon } from '../../../os/native-addon';
import { readyForSignal } from './ready-for-signal';
import { pollUntil } from './poll-until';
import { listProcStats, ProcStat, readProcStat, readRssBytes } from '../../../os/proc-fs';
import { assertDirectory, resolveExecutable } from './executable';
import { NativeProcessHandle } from './native-process-handle';
import { niceForCpuShares } from './cpu-shares';
import { signalEach } from '../signal-process';

const SIGSTOP = 19;
const PAUSE_TIMEOUT_MS = 5000;
const SIGCONT = 18;
/** USER_HZ: the unit of /proc/<pid>/stat times on every Linux ABI Node runs on. */
const NS_PER_TICK = 1_000_000_000 / 100;

/**
 * A task of host processes. Its processes are the sessions of its init and execs
 * (each is started with setsid), which is how Pause, `kill --all`, Pids and Stats
 * find children. A child that starts its own session leaves the task: the native
 * runtime has no cgroup to hold it (use runc for that).
 */
export class NativeTaskHandle implements TaskHandle {
  constructor(
    private readonly init: NativeProcessHandle,
    private readonly runAs: { uid: number; gid: number } | undefined,
    /** The task's execs, as the shim holds them (TaskWatch.execs). */
    private readonly execs: () => readonly ProcessHandle[],
  ) {}

  get pid(): number {
    return this.init.pid;
  }

  start(): Promise<number> {
    return this.init.start();
  }

  kill(signal: number): Promise<void> {
    return this.init.kill(signal);
  }

  resizePty(width: number, height: number): Promise<void> {
    return this.init.resizePty(width, height);
  }

  closeStdin(): Promise<void> {
    return this.init.closeStdin();
  }

  delete(): Promise<void> {
    return this.init.delete();
  }

  async exec(spec: ExecSpec, onExit: ExitListener): Promise<ProcessHandle> {
    const subject = `exec ${JSON.stringify(spec.execId)} of ${this.init.subject}`;
    assertDirectory(spec.process.cwd, subject);
    const file = resolveExecutable(spec.process.args[0], spec.process.env, spec.process.cwd, subject);
    const plan = {
      file,
      argv: spec.process.args,
      env: spec.process.env,
      cwd: spec.process.cwd,
      user: this.runAs,
      stdio: spec.stdio,
      subject,
    };
    return new NativeProcessHandle(plan, onExit);
  }

  async killAll(signal: number): Promise<void> {
    await readyForSignal(signal, this.sessions());
    signalEach(this.livePids(), signal);
  }

  /**
   * Stops every process and returns only once each really is stopped: a SIGSTOP
   * still pending is dequeued after a lower-numbered signal such as SIGTERM, so
   * returning early would let a following Kill end a "paused" process. Processes
   * forked meanwhile are caught by listing again until nothing new appears.
   */
  async pause(): Promise<void> {
    const deadline = Date.now() + PAUSE_TIMEOUT_MS;
    // A leader stopped before its exec would hold, for as long as the task stays paused, the
    // shim's memory and a copy of each of its descriptors (another task's stdin writer, say).
    await this.until(() => this.launching().size === 0, deadline, 'had not exec’d', 'stopped before their exec?');
    const stopped = new Set<number>();
    for (;;) {
      const pids = this.livePids().filter((pid) => !stopped.has(pid));
      if (pids.length === 0) return;
      signalEach(pids, SIGSTOP);
      await this.until(() => pids.every(isStoppedOrGone), deadline, 'did not stop', 'uninterruptible I/O?');
      for (const pid of pids) stopped.add(pid);
    }
  }

  /** Waits for `done`; past `deadline`, PAUSE.TIMEOUT: the processes `what` (`why`). */
  private async until(done: () => boolean, deadline: number, what: string, why: string): Promise<void> {
    if (await pollUntil(done, deadline)) return;
    throw new InternalError(
      `${this.init.subject}: processes ${what} within ${PAUSE_TIMEOUT_MS} ms (${why})`,
      'PAUSE.TIMEOUT',
    );
  }

  async resume(): Promise<void> {
    signalEach(this.livePids(), SIGCONT);
  }

  async pids(): Promise<ProcessPid[]> {
    return this.livePids().map((pid) => ({ pid }));
  }

  async stats(): Promise<TaskStats> {
    const launching = this.launching();
    const procs = this.liveProcs(launching);
    const user = procs.reduce((sum, s) => sum + s.userTicks, 0) * NS_PER_TICK;
    const system = procs.reduce((sum, s) => sum + s.systemTicks, 0) * NS_PER_TICK;
    // A leader not yet exec'd has the shim's memory as its own: none of it is the task's.
    const rss = procs.reduce((sum, s) => sum + (launching.has(s.pid) ? 0 : readRssBytes(s.pid)), 0);
    return {
      cpuUsageNs: user + system,
      cpuUserNs: user,
      cpuSystemNs: system,
      memoryRssBytes: rss,
      memoryUsageBytes: rss,
      memoryLimitBytes: 0,
      pidsCurrent: procs.length,
      pidsLimit: 0,
    };
  }

  /**
   * Applies what host processes can honour: `cpu.shares` becomes a nice value (the
   * scheduler weight the cgroup v1 share would give). Everything else needs cgroups.
   */
  async update(resources: Record<string, unknown>): Promise<void> {
    const { cpu, ...rest } = resources;
    const { shares, ...cpuRest } = (cpu ?? {}) as Record<string, unknown>;
    const unsupported = [...Object.keys(rest), ...Object.keys(cpuRest).map((k) => `cpu.${k}`)];
    if (unsupported.length > 0) {
      throw new UnimplementedError(
        `${this.init.subject}: the native runtime cannot apply ${unsupported.join(', ')} (only cpu.shares); use --runtime runc for cgroup limits`,
        'UPDATE.UNSUPPORTED',
      );
    }
    if (shares === undefined) return;
    const nice = niceForCpuShares(shares, this.init.subject);
    for (const pid of this.livePids()) {
      try {
        setPriority(pid, nice);
      } catch {
        // exited meanwhile
      }
    }
  }

  async checkpoint(): Promise<void> {
    throw new UnimplementedError(
      `${this.init.subject}: checkpoint needs CRIU and real containers; start the shim with --runtime runc`,
      'CHECKPOINT.UNSUPPORTED',
    );
  }

  private sessions(): Set<number> {
    return new Set([this.init.pid, ...this.execs().map((e) => e.pid)].filter((pid) => pid > 0));
  }

  /**
   * The leaders not yet exec'd: each is started without waiting for its setsid and exec
   * (spawnGated), so right after Create it may still be in the shim's session.
   */
  private launching(): Set<number> {
    return new Set([...this.sessions()].filter((pid) => nativeAddon().launchPending(pid)));
  }

  /**
   * The live processes of the task's sessions, and the leaders still launching by their
   * pid: only those, since once a leader has exited its pid may be another process's.
   * `launching` is read first: a leader it misses has exec'd, so it is in its session.
   */
  private liveProcs(launching = this.launching()): ProcStat[] {
    const sessions = this.sessions();
    return listProcStats().filter((s) => (sessions.has(s.session) || launching.has(s.pid)) && s.state !== 'Z');
  }

  private livePids(): number[] {
    return this.liveProcs().map((s) => s.pid);
  }
}

/** 'T' stopped by a signal, 't' stopped under a tracer; a zombie or a vanished pid counts as done. */
function isStoppedOrGone(pid: number): boolean {
  const state = readProcStat(pid)?.state;
  return state === undefined || state === 'T' || state === 't' || state === 'Z';
}
