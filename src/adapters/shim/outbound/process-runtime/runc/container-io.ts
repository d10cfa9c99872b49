import { FailedPreconditionError, UnimplementedError } from '../../../../../domain/shared/errors';
import { Stdio } from '../../../../../domain/shim/task-process';
import { ChildStdio, DirectStdio, StdioOwner } from '../stdio/direct-stdio';
import { TerminalStdio } from '../stdio/terminal-stdio';
import { BinaryLog, isBinaryLogUri } from '../stdio/binary-log';
import { DEFAULT_COLS, DEFAULT_ROWS, PtyMaster } from '../stdio/pty-master';
import { ConsoleSocket } from './console-socket';
import { KeptTerminal } from './kept-terminal';
import { LaunchFd } from '../../keeper/keeper-control';
import type { KeeperLink } from './runc-container';

/** The task's pod keeper and the key it keeps this process under (docs/keeper-protocol.md). */
export interface KeptKey {
  readonly link: KeeperLink;
  readonly key: string;
}

export interface ContainerIoOptions {
  /** The process spec sets consoleSize, which runc applies itself. */
  readonly sized?: boolean;
  /** Taken over from a previous serving process: the process has its descriptors already. */
  readonly adopted?: boolean;
  /** Launched through the task's pod keeper, which then holds a terminal's master too. */
  readonly keeper?: KeptKey;
  /** The owner the process's stdio FIFOs get (IoUid, IoGid), as containerd's runc shim gives its pipes. */
  readonly ioOwner?: StdioOwner;
}

/**
 * The stdio of one container process, shared by the init and execs
 * (docs/shim-contract.md, "stdio"; containerd's pkg/process/io.go). Without a terminal
 * the FIFO and file descriptors are runc's own stdio, which runc hands to the process,
 * and the shim keeps only its FIFO holders and stdin writer (as on the native runtime).
 * With a terminal runc gets /dev/null and a console socket, and the master it sends is
 * copied to and from the FIFOs: by the pod keeper when there is one (kept-terminal.ts),
 * so the terminal outlives the serving process, else by the serving process.
 */
export class ContainerIo {
  readonly runcStdio: readonly [ChildStdio, ChildStdio, ChildStdio];
  private readonly direct: DirectStdio | undefined;
  private readonly terminal: TerminalStdio | undefined;
  private readonly console: ConsoleSocket | undefined;
  private readonly kept: KeptTerminal | undefined;
  /** A `binary://` stdout: the logger's pipes, until the logger and the process have theirs. */
  readonly logger: BinaryLog | undefined;
  private pty: PtyMaster | undefined;
  /** The pod keeper that holds this process's terminal: resizes go there. */
  private readonly terminalKeeper: KeptKey | undefined;
  /** A process taken over from a previous serving process that held its terminal: the master went with it. */
  private readonly terminalLost: boolean;
  private readonly sized: boolean;

  constructor(
    stdio: Stdio,
    private readonly subject: string,
    options: ContainerIoOptions = {},
  ) {
    this.sized = options.sized ?? false;
    this.terminalKeeper = stdio.terminal ? options.keeper : undefined;
    this.terminalLost = (options.adopted ?? false) && stdio.terminal && this.terminalKeeper === undefined;
    this.runcStdio = ['ignore', 'ignore', 'ignore'];
    if (options.adopted && (stdio.terminal || isBinaryLogUri(stdio.stdout))) return;
    if (isBinaryLogUri(stdio.stdout)) {
      checkBinaryLogServed(stdio.terminal, options.keeper !== undefined, subject);
      // As the runc shim's binaryIO: stdout and stderr go to the logger, stdin is not read.
      this.logger = new BinaryLog(stdio.stdout, subject);
      this.runcStdio = ['ignore', this.logger.stdout, this.logger.stderr];
      return;
    }
    if (!stdio.terminal) {
      this.direct = new DirectStdio(stdio, subject, options.ioOwner);
      this.runcStdio = this.direct.child;
      return;
    }
    if (this.terminalKeeper !== undefined) {
      this.kept = new KeptTerminal(stdio, subject);
      return;
    }
    this.terminal = new TerminalStdio(stdio, subject);
    try {
      this.console = new ConsoleSocket();
    } catch (err) {
      this.terminal.release();
      throw err;
    }
  }

  /** runc's flags for this stdio. */
  get runcArgs(): string[] {
    const path = this.console?.path ?? this.kept?.consoleSocket;
    return path === undefined ? [] : ['--console-socket', path];
  }

  /** The console socket a pod keeper's launch binds ('' without a terminal). */
  get keptConsole(): string {
    return this.kept?.consoleSocket ?? '';
  }

  /**
   * The descriptors a pod keeper's launch hands on by role: the process's 0/1/2, the FIFO
   * holders and the stdin writer (so that a crash of the serving process before the client
   * opened stdin is no end-of-file: CloseIO closes the keeper's copy too), or what the
   * keeper copies a terminal to and from.
   */
  get keptFds(): LaunchFd[] {
    const fds: LaunchFd[] = [];
    this.runcStdio.forEach((fd, i) => {
      if (fd !== 'ignore') fds.push({ role: String(i) as '0' | '1' | '2', fd });
    });
    for (const fd of this.direct?.holderFds ?? []) fds.push({ role: 'H', fd });
    const stdinWriter = this.direct?.stdinKeepAliveFd;
    if (stdinWriter !== undefined) fds.push({ role: 'I', fd: stdinWriter });
    fds.push(...(this.kept?.fds ?? []));
    return fds;
  }

  /** runc made the process: close what only the process (or its keeper) should hold, take the terminal. */
  afterRunc(): void {
    this.direct?.afterSpawn();
    this.logger?.afterRunc();
    this.kept?.launched();
    if (this.console === undefined || this.terminal === undefined) return;
    const pty = new PtyMaster(this.console.receive(this.subject));
    this.pty = pty;
    // runc leaves a terminal 0x0 when the process spec sets no consoleSize.
    if (!this.sized) pty.resize(DEFAULT_COLS, DEFAULT_ROWS);
    this.terminal.attach(pty);
    // Without a stdout the terminal is still read, so the process never blocks on it.
    pty.onData(() => undefined);
  }

  /** The keeper's terminal, made: runc leaves it 0x0 when the process spec sets no consoleSize. */
  async sizeKept(): Promise<void> {
    if (this.kept !== undefined && !this.sized) await this.resize(DEFAULT_COLS, DEFAULT_ROWS);
  }

  async resize(width: number, height: number): Promise<void> {
    const keeper = this.terminalKeeper;
    if (keeper !== undefined)
      return keeper.link.keepers.resize(keeper.link.pod, keeper.key, width, height, this.subject);
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
    this.logger?.release();
    this.direct?.release();
    this.terminal?.release();
    this.kept?.release();
    this.console?.close();
    this.pty?.close();
  }
}

/**
 * `binary://` is served where the pod keeper can run the logger, so that it outlives the serving
 * process as the container does; a terminal's `binary://` (which ctr never sends: `ctr run -t`
 * drops --log-uri, `ctr task exec` refuses the two together) is not served yet.
 */
function checkBinaryLogServed(terminal: boolean, kept: boolean, subject: string): void {
  if (terminal)
    throw new UnimplementedError(
      `${subject}: a binary:// log URI with a terminal is not served; log a terminal to a FIFO or a file:// URI`,
      'STDIO.BINARY_TERMINAL',
    );
  if (!kept)
    throw new UnimplementedError(
      `${subject}: binary:// log URIs are served under containerd behind pod keepers (unset SKIFF_KEEPER=0); use a FIFO or a file:// URI here`,
      'STDIO.BINARY_UNKEPT',
    );
}
