import { closeSync, constants, fchownSync, openSync } from 'node:fs';
import { Stdio } from '../../../../../domain/shim/task-process';
import { FifoHolder } from './fifo-holder';
import { StdinFifo } from './stdin-fifo';
import { resolveStdioTargets, StdioTarget } from './stdio-target';
import type { LaunchFd } from '../../keeper/keeper-control';

export type ChildStdio = number | 'ignore';

/**
 * Who a process's stdio FIFOs are given to: the runtime options' IoUid and IoGid. containerd's
 * runc shim makes its stdio pipes theirs (go-runc's NewPipeIO), so that a container whose root
 * is another host id (a user namespace) can open its stdio again by path (/dev/stdout); here the
 * process has the FIFOs themselves, so they are the ones given. Files are left as they are: they
 * are the client's, which the runc shim never hands the process.
 */
export interface StdioOwner {
  readonly uid: number;
  readonly gid: number;
}

/** Opens an output file: appended to, created 0600 (docs/shim-contract.md, "stdio"). */
export function openOutputFile(path: string): number {
  return openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600);
}

/**
 * stdio handed straight to a process (no terminal): the process writes into the
 * FIFO or file itself, so output costs the shim nothing. The shim keeps what it
 * needs to keep (FIFO holders, the stdin writer) and closes the rest after spawn.
 */
export class DirectStdio {
  /** Descriptors for the child's fds 0, 1 and 2. */
  readonly child: [ChildStdio, ChildStdio, ChildStdio];
  private readonly holders: FifoHolder[] = [];
  private readonly stdinFifo: StdinFifo | undefined;
  private readonly closeAfterSpawn: number[] = [];

  constructor(
    stdio: Stdio,
    subject: string,
    private readonly owner?: StdioOwner,
  ) {
    const targets = resolveStdioTargets(stdio, subject);
    try {
      this.stdinFifo = targets.stdin.kind === 'fifo' ? new StdinFifo(targets.stdin.path) : undefined;
      const stdin = this.openStdin(targets.stdin);
      const stdout = this.openOutput(targets.stdout);
      // stdout and stderr naming one path share one descriptor (one FIFO holder, one append offset).
      const stderr = stdio.stderr === stdio.stdout ? stdout : this.openOutput(targets.stderr);
      this.child = [stdin, stdout, stderr];
    } catch (err) {
      this.release();
      throw err;
    }
  }

  private openStdin(target: StdioTarget): ChildStdio {
    if (target.kind === 'none') return 'ignore';
    // A FIFO's blocking open returns at once: the StdinFifo holds a writer.
    const fd = openSync(target.path, constants.O_RDONLY);
    this.closeAfterSpawn.push(fd);
    if (this.stdinFifo !== undefined) this.giveToOwner(fd);
    return fd;
  }

  private openOutput(target: StdioTarget): ChildStdio {
    if (target.kind === 'none') return 'ignore';
    if (target.kind === 'fifo') {
      const holder = new FifoHolder(target.path);
      this.holders.push(holder);
      this.giveToOwner(holder.fd);
      return holder.fd;
    }
    const fd = openOutputFile(target.path);
    this.closeAfterSpawn.push(fd);
    return fd;
  }

  private giveToOwner(fd: number): void {
    if (this.owner !== undefined) fchownSync(fd, this.owner.uid, this.owner.gid);
  }

  /**
   * What a pod keeper holds copies of (docs/keeper-protocol.md): the FIFO holders' read-write
   * descriptors (role `H`) and the stdin FIFO's writer while CloseIO has not closed it (`I`).
   */
  get keptFds(): LaunchFd[] {
    const fds: LaunchFd[] = this.holders.map((holder) => ({ role: 'H', fd: holder.fd }));
    const writer = this.stdinFifo?.keepaliveFd;
    if (writer !== undefined) fds.push({ role: 'I', fd: writer });
    return fds;
  }

  /** The child has its copies: drop the shim's copies it must not hold. */
  afterSpawn(): void {
    for (const fd of this.closeAfterSpawn.splice(0)) closeSync(fd);
  }

  closeStdin(): void {
    this.stdinFifo?.closeWriter();
  }

  /** The process exited: stdin is done, output FIFOs close once drained. */
  finish(): void {
    this.stdinFifo?.closeWriter();
    for (const holder of this.holders) holder.closeWhenDrained();
  }

  release(): void {
    this.afterSpawn();
    this.stdinFifo?.closeWriter();
    for (const holder of this.holders) holder.close();
  }
}
