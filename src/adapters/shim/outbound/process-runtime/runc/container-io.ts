import { FailedPreconditionError } from '../../../../../domain/shared/errors';
import { Stdio } from '../../../../../domain/shim/task-process';
import { ChildStdio, DirectStdio } from '../stdio/direct-stdio';
import { TerminalStdio } from '../stdio/terminal-stdio';
import { DEFAULT_COLS, DEFAULT_ROWS, PtyMaster } from '../stdio/pty-master';
import { ConsoleSocket } from './console-socket';
import { LaunchFd } from '../../keeper/keeper-control';

/**
 * The stdio of one container process, shared by the init and execs
 * (docs/shim-contract.md, "stdio"; containerd's pkg/process/io.go). Without a terminal
 * the FIFO and file descriptors are runc's own stdio, which runc hands to the process,
 * and the shim keeps only its FIFO holders and stdin writer (as on the native runtime).
 * With a terminal runc gets /dev/null and a console socket, and the shim copies between
 * the master it receives and the FIFOs.
 */
export class ContainerIo {
  readonly runcStdio: readonly [ChildStdio, ChildStdio, ChildStdio];
  private readonly direct: DirectStdio | undefined;
  private readonly terminal: TerminalStdio | undefined;
  private readonly console: ConsoleSocket | undefined;
  private pty: PtyMaster | undefined;
  /** A process taken over from a previous serving process: its terminal's master went with that process. */
  private readonly terminalLost: boolean;

  constructor(
    stdio: Stdio,
    private readonly subject: string,
    /** The process spec sets consoleSize, which runc applies itself. */
    private readonly sized = false,
    adopted = false,
  ) {
    this.terminalLost = adopted && stdio.terminal;
    if (this.terminalLost) {
      this.runcStdio = ['ignore', 'ignore', 'ignore'];
      return;
    }
    if (!stdio.terminal) {
      this.direct = new DirectStdio(stdio, subject);
      this.runcStdio = this.direct.child;
      return;
    }
    this.terminal = new TerminalStdio(stdio, subject);
    try {
      this.console = new ConsoleSocket();
    } catch (err) {
      this.terminal.release();
      throw err;
    }
    this.runcStdio = ['ignore', 'ignore', 'ignore'];
  }

  /** runc's flags for this stdio. */
  get runcArgs(): string[] {
    return this.console === undefined ? [] : ['--console-socket', this.console.path];
  }

  /**
   * The descriptors a pod keeper's launch hands on by role: the process's 0/1/2, the FIFO
   * holders, and the stdin writer, so that a crash of the serving process before the client
   * opened stdin is no end-of-file for the process (CloseIO closes the keeper's copy too).
   */
  get keptFds(): LaunchFd[] {
    const fds: LaunchFd[] = [];
    this.runcStdio.forEach((fd, i) => {
      if (fd !== 'ignore') fds.push({ role: String(i) as '0' | '1' | '2', fd });
    });
    for (const fd of this.direct?.holderFds ?? []) fds.push({ role: 'H', fd });
    const stdinWriter = this.direct?.stdinKeepAliveFd;
    if (stdinWriter !== undefined) fds.push({ role: 'I', fd: stdinWriter });
    return fds;
  }

  /** runc made the process: close what only the process should hold, take the terminal. */
  afterRunc(): void {
    this.direct?.afterSpawn();
    if (this.console === undefined || this.terminal === undefined) return;
    const pty = new PtyMaster(this.console.receive(this.subject));
    this.pty = pty;
    // runc leaves a terminal 0x0 when the process spec sets no consoleSize.
    if (!this.sized) pty.resize(DEFAULT_COLS, DEFAULT_ROWS);
    this.terminal.attach(pty);
    // Without a stdout the terminal is still read, so the process never blocks on it.
    pty.onData(() => undefined);
  }

  resize(width: number, height: number): void {
    if (this.terminalLost)
      throw new FailedPreconditionError(
        `${this.subject}: its terminal was held by the serving process that made it, which is gone`,
        'PTY.LOST',
      );
    if (this.pty === undefined)
      throw new FailedPreconditionError(`${this.subject} has no terminal to resize`, 'PTY.NONE');
    this.pty.resize(width, height);
  }

  closeStdin(): void {
    this.direct?.closeStdin();
    this.terminal?.closeStdin();
  }

  /** After the exit: the terminal's last output is copied, then readers drain the FIFOs. */
  async finish(): Promise<void> {
    const pty = this.pty;
    await pty?.drained();
    this.direct?.finish();
    this.terminal?.finish();
    pty?.close();
  }

  release(): void {
    this.direct?.release();
    this.terminal?.release();
    this.console?.close();
    this.pty?.close();
  }
}
