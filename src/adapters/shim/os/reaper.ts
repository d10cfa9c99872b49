import { readdirSync, readFileSync } from 'node:fs';
import { isWatched } from './exit-watch';
import { nativeAddon } from './native-addon';
import { listProcStats, readProcStat } from './proc-fs';

/**
 * The shim as a child subreaper (as containerd's shim is; docs/runtimes.md, "The shim
 * is the parent"). `runc create` and `runc exec --detach` exit and leave the
 * container's processes re-parented to the shim; each one the shim knows is watched by
 * pid (a pidfd, reaped by exactly that pid), as are the helper programs it starts
 * itself (runc, mount: see run-program.ts). Any other orphan that lands here (a
 * container child whose parent died) is reaped on SIGCHLD so that it never stays a
 * zombie.
 */
export class Reaper {
  private static instance: Reaper | undefined;
  private adoptions = 0;
  private sweepDeferred = false;
  private sweepQueued = false;

  private constructor() {
    nativeAddon().setChildSubreaper();
    process.on('SIGCHLD', () => this.queueSweep());
  }

  /** The process-wide reaper (the subreaper flag belongs to the whole process). */
  static shared(): Reaper {
    Reaper.instance ??= new Reaper();
    return Reaper.instance;
  }

  /**
   * Runs `adopt` (a runc call that leaves a process re-parented here) with the sweep held
   * off: until its pid is read and watched, that process must not be mistaken for an orphan.
   */
  async adopting<T>(adopt: () => Promise<T>): Promise<T> {
    this.adoptions++;
    try {
      return await adopt();
    } finally {
      if (--this.adoptions === 0 && this.sweepDeferred) {
        this.sweepDeferred = false;
        this.sweep();
      }
    }
  }

  /**
   * Reaps every zombie child that no pidfd watch will reap (this reaper's, or the native
   * runtime's, whose processes are watched the same way).
   */
  sweep(): void {
    if (this.adoptions > 0) {
      this.sweepDeferred = true;
      return;
    }
    // Nearly always a single waitid that finds no zombie: the watched ones of this SIGCHLD
    // were reaped by their watches first (see queueSweep).
    let last = 0;
    for (let pid = exitedChild(); pid !== 0; last = pid, pid = exitedChild()) {
      if (pid < 0 || isWatched(pid) || pid === last) {
        // waitid names one zombie, and this one is its watch's to reap (or would not go, or
        // waitid failed): look at each child instead.
        this.sweepChildren();
        return;
      }
      reap(pid);
    }
  }

  /**
   * After the current poll phase: a SIGCHLD and the pidfd of the child that sent it turn
   * ready together, and by then the watch has reaped that child.
   */
  private queueSweep(): void {
    if (this.sweepQueued) return;
    this.sweepQueued = true;
    setImmediate(() => {
      this.sweepQueued = false;
      this.sweep();
    });
  }

  private sweepChildren(): void {
    for (const pid of childPids()) {
      if (!isWatched(pid) && readProcStat(pid)?.state === 'Z') reap(pid);
    }
  }
}

/** A zombie child's pid, 0 when there is none, -1 when waitid failed. */
function exitedChild(): number {
  try {
    return nativeAddon().exitedChild();
  } catch {
    return -1;
  }
}

function reap(pid: number): void {
  try {
    nativeAddon().reap(pid);
  } catch {
    // reaped meanwhile
  }
}

/**
 * The children of every thread of this process (/proc/<pid>/task/<tid>/children), or,
 * on a kernel without CONFIG_PROC_CHILDREN, every process whose parent is this one.
 */
function childPids(): number[] {
  const pids: number[] = [];
  try {
    for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
      const text = readFileSync(`/proc/${process.pid}/task/${tid}/children`, 'latin1');
      for (const field of text.split(' ')) if (field !== '') pids.push(Number(field));
    }
    return pids;
  } catch {
    return listProcStats()
      .filter((s) => s.ppid === process.pid)
      .map((s) => s.pid);
  }
}
