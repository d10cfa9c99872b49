import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../shared/helpers/package-info';

/** The functions of native/skiff_native.c (built by `npm install`). */
export interface NativeAddon {
  /** Bytes waiting unread in the pipe or FIFO behind `fd`. */
  fionread(fd: number): number;
  mkfifo(path: string, mode: number): void;
  /** prctl(PR_SET_CHILD_SUBREAPER): orphaned descendants are re-parented to this process. */
  setChildSubreaper(): void;
  /**
   * Watches one child (or adopted orphan) through a pidfd on Node's event loop and, once
   * it exits, reaps exactly that pid and calls back once. Children libuv spawned are never touched.
   */
  watchExit(pid: number, callback: (exit: NativeExit | null, err: NodeJS.ErrnoException | null) => void): void;
  /** Reaps one zombie child without blocking: its exit, or null when it has not exited. */
  reap(pid: number): NativeExit | null;
  /** A listening unix stream socket at `path`; returns its descriptor. */
  listenUnix(path: string): number;
  /** Accepts one waiting connection and returns the descriptor it sent (SCM_RIGHTS), non-blocking. */
  receiveFd(listenFd: number): number;
  /** ioctl(TIOCSWINSZ) on a terminal descriptor. */
  setWindowSize(fd: number, cols: number, rows: number): void;
  /**
   * posix_spawn of `file` in a new session with default signal dispositions and an empty
   * mask; `fds[i]` becomes the child's fd i (-1: /dev/null). Returns the pid; the exit is
   * learnt with watchExit.
   */
  spawn(file: string, argv: readonly string[], envp: readonly string[], cwd: string, fds: readonly number[]): number;
  /** A pipe, both ends close-on-exec: [read, write]. */
  pipe(): [number, number];
  /** mount(2); `data` '' passes none. */
  mount(source: string, target: string, fstype: string, flags: number, data: string): void;
  /** umount2(2). */
  unmount(target: string, flags: number): void;
  /** A new pseudo-terminal of the given size: [master (non-blocking), slave], both close-on-exec. */
  openPty(cols: number, rows: number): [number, number];
}

/** An exit as waitid reports it: the exit code, or the signal that ended the process. */
export interface NativeExit {
  readonly code: number | null;
  readonly signal: number | null;
}

let loaded: NativeAddon | undefined;

/** The static start gate built beside the addon (native/gate.c). */
export function gatePath(): string {
  return join(packageRoot(), 'build', 'Release', 'skiff-gate');
}

export function nativeAddon(): NativeAddon {
  if (loaded === undefined) {
    const path = join(packageRoot(), 'build', 'Release', 'skiff_native.node');
    if (!existsSync(path)) {
      throw new Error(
        `skiff's native addon ${path} is missing: run \`npm install\` (it builds it with the C compiler)`,
      );
    }
    loaded = require(path) as NativeAddon;
  }
  return loaded;
}
