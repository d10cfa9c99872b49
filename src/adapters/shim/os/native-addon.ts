import { join } from 'node:path';
import { addonPath, nativePartsDir } from './native-parts';

/** The functions of native/addon/skiff_native.c (prebuilt in the package, or built from source). */
export interface NativeAddon {
  /** The package version the addon was built for (`skiff --version` shows it). */
  readonly version: string;
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
  /** The pid of some zombie child, left unreaped (waitid P_ALL with WNOWAIT); 0 when none has exited. */
  exitedChild(): number;
  /** A listening unix stream socket at `path` (close-on-exec, backlog 4 unless given); returns its descriptor. */
  listenUnix(path: string, backlog?: number): number;
  /** Accepts one waiting connection and returns the descriptor it sent (SCM_RIGHTS), non-blocking. */
  receiveFd(listenFd: number): number;
  /** Writes `data` on a unix stream socket with `fds` attached (SCM_RIGHTS) to its first byte. */
  sendWithFds(socketFd: number, data: Buffer, fds: readonly number[]): void;
  /** shutdown(SHUT_RD) of a connected unix socket: what the peer wrote stays readable, its later writes fail. */
  shutdownRead(fd: number): void;
  /** A close-on-exec copy of a descriptor (numbered 10 or more). */
  dupFd(fd: number): number;
  /** ioctl(TIOCSWINSZ) on a terminal descriptor. */
  setWindowSize(fd: number, cols: number, rows: number): void;
  /**
   * posix_spawn of `file` in a new session with default signal dispositions and an empty
   * mask; `fds[i]` becomes the child's fd i (-1: /dev/null); `envp` null hands on this
   * process's environment (process.env writes through to it). Returns the pid; the exit is
   * learnt with watchExit.
   */
  spawn(
    file: string,
    argv: readonly string[],
    envp: readonly string[] | null,
    cwd: string,
    fds: readonly number[],
  ): number;
  /**
   * The same child as spawn's, without waiting for its setsid or its exec (native/addon/launch.c):
   * for a program whose file and cwd were checked already. A failure at the exec is the
   * child's exit 127, with one line on its stderr; argv and envp long enough for an exec to
   * refuse them (E2BIG) are spawn's instead, so that error is thrown here.
   */
  spawnNoWait(
    file: string,
    argv: readonly string[],
    envp: readonly string[],
    cwd: string,
    fds: readonly number[],
  ): number;
  /**
   * Whether the spawnNoWait child `pid` has yet to exec (or exit): until then it shares this
   * process's memory and a copy of each of its descriptors, and may not have called setsid.
   */
  launchPending(pid: number): boolean;
  /** spawnNoWait children whose memory is still held: not yet exec'd or exited. */
  launchesHeld(): number;
  /** A pipe, both ends close-on-exec: [read, write]. */
  pipe(): [number, number];
  /** mount(2); `data` '' passes none. */
  mount(source: string, target: string, fstype: string, flags: number, data: string): void;
  /** umount2(2). */
  unmount(target: string, flags: number): void;
  /**
   * A user namespace with these mappings (uid_map and gid_map text, `inside outside count\n`
   * per range), made by a short-lived clone(CLONE_NEWUSER) helper reaped before this returns
   * (native/addon/idmap.c). Returns its descriptor, close-on-exec: the caller closes it.
   */
  userNamespace(uidMap: string, gidMap: string): number;
  /**
   * open_tree(OPEN_TREE_CLONE) of `source` (AT_RECURSIVE when `recursive`), made idmapped
   * through the user namespace `usernsFd` (and read-only when asked), then moved onto
   * `target`; nothing is mounted unless all three calls succeed.
   */
  idmapMount(source: string, target: string, usernsFd: number, recursive: boolean, readOnly: boolean): void;
  /** Calls back on each OOM kill in a cgroup v1 memory cgroup (its directory); ends when the cgroup is removed. */
  watchOom(memoryCgroupDir: string, onOom: () => void): void;
  /** A new pseudo-terminal of the given size: [master (non-blocking), slave], both close-on-exec. */
  openPty(cols: number, rows: number): [number, number];
}

/** An exit as waitid reports it: the exit code, or the signal that ended the process. */
export interface NativeExit {
  readonly code: number | null;
  readonly signal: number | null;
}

let loaded: NativeAddon | undefined;
let gate: string | undefined;

/** The static start gate, built beside the addon (native/gate/gate.c). */
export function gatePath(): string {
  // Asked at every spawn: finding the native parts takes a few stat calls, so once.
  gate ??= join(nativePartsDir(), 'skiff-gate');
  return gate;
}

export function nativeAddon(): NativeAddon {
  loaded ??= require(addonPath()) as NativeAddon;
  return loaded;
}
