import { FailedPreconditionError, UnimplementedError } from '../../../../../domain/shared/errors';
import { Stdio } from '../../../../../domain/shim/task-process';
import { ChildStdio, DirectStdio, StdioOwner } from '../stdio/direct-stdio';
import { TerminalStdio } from '../stdio/terminal-stdio';
import { BinaryLog } from '../stdio/binary-log';
import { DEFAULT_COLS, DEFAULT_ROWS, PtyMaster } from '../stdio/pty-master';
import { isBinaryLogUri, resolveStdioTargets } from '../stdio/stdio-target';
import { ConsoleSocket } from './console-socket';
import { KeptTerminal } from './kept-terminal';
import { LaunchFd } from '../../keeper/keeper-control';
import { LaunchIo, StdioKeeper } from './launcher';

/** The pod keeper that keeps a process, and the key it keeps it under (docs/keeper-protocol.md). */
export interface KeptKey {
  readonly keeper: StdioKeeper;
  readonly key: string;
}

export interface ContainerIoOptions {
  /** The process spec sets consoleSize, which runc applies itself. */
  readonly sized?: boolean;
  /** Taken over from a previous serving process: the process has its descriptors already. */
  readonly adopted?: boolean;
  /** The task's pod keeper, when it keeps the process (Launcher.keeper): it then holds a terminal's master too. */
  readonly kept?: KeptKey;
  /** The owner the process's stdio FIFOs get (IoUid, IoGid), as containerd's runc shim gives its pipes. */
  readonly ioOwner?: StdioOwner;
}

/**
 * The stdio of one container process, shared by the init and execs (docs/shim-contract.md,
 * "stdio"; containerd's pkg/process/io.go), in one of its modes, each a class below made by
 * openContainerIo: FIFOs and files handed to runc (FifoIo), a binary:// logger's pipes
 * (LoggedIo), a terminal copied by this process (ServedTerminalIo) or by the pod keeper
 * (KeptTerminalIo), or, taken over, what a previous serving process held and took with it.
 */
export interface ContainerIo extends LaunchIo {
  /** runc made the process: close what only the process (or its keeper) should hold, take the terminal. */
  afterRunc(): void;
  /** The keeper's terminal, made: runc leaves it 0x0 when the process spec sets no consoleSize. */
  sizeTerminal(): Promise<void>;
  resize(width: number, height: number): Promise<void>;
  closeStdin(): void;
  /** After the exit: the terminal's last output is copied, then readers drain the FIFOs. */
  finish(): Promise<void>;
  release(): void;
}

/**
 * The one factory of a process's ContainerIo, its mode read from the stdio, the keeper and
 * whether it is taken over. A process taken over with a terminal or a binary:// stdout has its
 * descriptors, and a previous serving process held the rest: nothing is opened again.
 */
export function openContainerIo(stdio: Stdio, subject: string, options: ContainerIoOptions = {}): ContainerIo {
  const { adopted = false, kept, sized = false } = options;
  if (adopted && stdio.terminal)
    return kept !== undefined ? new KeptTerminalIo(subject, kept, sized) : new LostTerminalIo(subject);
  if (adopted && isBinaryLogUri(stdio.stdout)) return new NoIo(subject);
  if (isBinaryLogUri(stdio.stdout)) {
    checkBinaryLogServed(stdio.terminal, kept !== undefined, subject);
    return new LoggedIo(new BinaryLog(stdio.stdout, subject), subject);
  }
  if (!stdio.terminal) return new FifoIo(new DirectStdio(stdio, subject, options.ioOwner), subject);
  if (kept !== undefined) return new KeptTerminalIo(subject, kept, sized, new KeptTerminal(stdio, subject));
  return ServedTerminalIo.open(stdio, subject, sized);
}

/**
 * Refuses at Exec the stdio strings openContainerIo would refuse at Start (their FIFOs and files
 * are opened then); a kept binary:// stdout is checked when its logger starts, as the runc shim's.
 */
export function checkStdio(stdio: Stdio, subject: string, keeper: StdioKeeper | undefined): void {
  if (keeper !== undefined && isBinaryLogUri(stdio.stdout)) return;
  resolveStdioTargets(stdio, subject);
}

/** What a mode holds nothing of it does nothing for: runc gets /dev/null, there is no terminal to resize. */
abstract class NoStdio implements ContainerIo {
  readonly runcArgs: readonly string[] = [];
  readonly runcStdio: readonly [ChildStdio, ChildStdio, ChildStdio] = ['ignore', 'ignore', 'ignore'];
  readonly keptConsole: string = '';
  readonly logger: BinaryLog | undefined = undefined;

  constructor(protected readonly subject: string) {}

  get keptFds(): readonly LaunchFd[] {
    return [];
  }

  afterRunc(): void {
    // Nothing held here to hand over.
  }

  async sizeTerminal(): Promise<void> {
    // No terminal the keeper holds.
  }

  async resize(_width: number, _height: number): Promise<void> {
    throw new FailedPreconditionError(`${this.subject} has no terminal to resize`, 'PTY.NONE');
  }

  closeStdin(): void {
    // No stdin held here.
  }

  async finish(): Promise<void> {
    // No output to drain.
  }

  release(): void {
    // Nothing held here.
  }
}

/** Taken over with a binary:// stdout: the process and its logger have their pipes. */
class NoIo extends NoStdio {}

/** Taken over with a terminal the previous serving process held: the master went with it. */
class LostTerminalIo extends NoStdio {
  override async resize(): Promise<void> {
    throw new FailedPreconditionError(
      `${this.subject}: its terminal was held by the serving process that made it, which is gone`,
      'PTY.LOST',
    );
  }
}

/**
 * No terminal: the FIFO and file descriptors are runc's own stdio, which runc hands to the
 * process, and the shim keeps only its FIFO holders and stdin writer (as on the native runtime).
 */
class FifoIo extends NoStdio {
  override readonly runcStdio: readonly [ChildStdio, ChildStdio, ChildStdio];

  constructor(
    private readonly direct: DirectStdio,
    subject: string,
  ) {
    super(subject);
    this.runcStdio = direct.child;
  }

  /**
   * A pod keeper's launch hands on by role the process's 0/1/2, the FIFO holders and the stdin
   * writer (so that a crash of the serving process before the client opened stdin is no
   * end-of-file: CloseIO closes the keeper's copy too).
   */
  override get keptFds(): readonly LaunchFd[] {
    return [...roleFds(this.runcStdio), ...this.direct.keptFds];
  }

  override afterRunc(): void {
    this.direct.afterSpawn();
  }

  override closeStdin(): void {
    this.direct.closeStdin();
  }

  override async finish(): Promise<void> {
    this.direct.finish();
  }

  override release(): void {
    this.direct.release();
  }
}

/** A binary:// stdout: as the runc shim's binaryIO, stdout and stderr go to the logger, stdin is not read. */
class LoggedIo extends NoStdio {
  override readonly runcStdio: readonly [ChildStdio, ChildStdio, ChildStdio];

  constructor(
    override readonly logger: BinaryLog,
    subject: string,
  ) {
    super(subject);
    this.runcStdio = ['ignore', logger.stdout, logger.stderr];
  }

  override get keptFds(): readonly LaunchFd[] {
    return roleFds(this.runcStdio);
  }

  override afterRunc(): void {
    this.logger.afterRunc();
  }

  override release(): void {
    this.logger.release();
  }
}

/**
 * A terminal the pod keeper holds (kept-terminal.ts): runc gets /dev/null and the keeper's
 * console socket, the keeper copies the master to and from the FIFOs and resizes it, so the
 * terminal outlives the serving process. Taken over, there is no KeptTerminal: the keeper has it all.
 */
class KeptTerminalIo extends NoStdio {
  override readonly runcArgs: readonly string[];
  override readonly keptConsole: string;

  constructor(
    subject: string,
    private readonly held: KeptKey,
    private readonly sized: boolean,
    private readonly terminal?: KeptTerminal,
  ) {
    super(subject);
    this.keptConsole = terminal?.consoleSocket ?? '';
    this.runcArgs = terminal === undefined ? [] : ['--console-socket', terminal.consoleSocket];
  }

  override get keptFds(): readonly LaunchFd[] {
    return this.terminal?.fds ?? [];
  }

  override afterRunc(): void {
    this.terminal?.launched();
  }

  override async sizeTerminal(): Promise<void> {
    if (this.terminal !== undefined && !this.sized) await this.resize(DEFAULT_COLS, DEFAULT_ROWS);
  }

  override resize(width: number, height: number): Promise<void> {
    return this.held.keeper.resize(this.held.key, width, height, this.subject);
  }

  override release(): void {
    this.terminal?.release();
  }
}

/**
 * A terminal this serving process copies: runc gets /dev/null and a console socket, and the
 * master it sends is copied to and from the FIFOs (terminal-stdio.ts).
 */
class ServedTerminalIo extends NoStdio {
  override readonly runcArgs: readonly string[];
  private pty: PtyMaster | undefined;

  static open(stdio: Stdio, subject: string, sized: boolean): ServedTerminalIo {
    const terminal = new TerminalStdio(stdio, subject);
    try {
      return new ServedTerminalIo(terminal, new ConsoleSocket(), subject, sized);
    } catch (err) {
      terminal.release();
      throw err;
    }
  }

  private constructor(
    private readonly terminal: TerminalStdio,
    private readonly console: ConsoleSocket,
    subject: string,
    private readonly sized: boolean,
  ) {
    super(subject);
    this.runcArgs = ['--console-socket', console.path];
  }

  override afterRunc(): void {
    const pty = new PtyMaster(this.console.receive(this.subject));
    this.pty = pty;
    // runc leaves a terminal 0x0 when the process spec sets no consoleSize.
    if (!this.sized) pty.resize(DEFAULT_COLS, DEFAULT_ROWS);
    this.terminal.attach(pty);
    // Without a stdout the terminal is still read, so the process never blocks on it.
    pty.onData(() => undefined);
  }

  override async resize(width: number, height: number): Promise<void> {
    if (this.pty === undefined) return super.resize(width, height);
    this.pty.resize(width, height);
  }

  override closeStdin(): void {
    this.terminal.closeStdin();
  }

  override async finish(): Promise<void> {
    const pty = this.pty;
    await pty?.drained();
    this.terminal.finish();
    pty?.close();
  }

  override release(): void {
    this.terminal.release();
    this.console.close();
    this.pty?.close();
  }
}

/** runc's own 0/1/2, as a keeper's launch hands them on. */
function roleFds(stdio: readonly [ChildStdio, ChildStdio, ChildStdio]): LaunchFd[] {
  const fds: LaunchFd[] = [];
  stdio.forEach((fd, i) => {
    if (fd !== 'ignore') fds.push({ role: String(i) as '0' | '1' | '2', fd });
  });
  return fds;
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
