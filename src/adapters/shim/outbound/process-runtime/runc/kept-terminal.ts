import { closeSync, constants, createReadStream, mkdtempSync, openSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Stdio } from '../../../../../domain/shim/task-process';
import { nativeAddon } from '../../../os/native-addon';
import { openOutputFile } from '../stdio/direct-stdio';
import { FifoHolder } from '../stdio/fifo-holder';
import { StdinFifo } from '../stdio/stdin-fifo';
import { resolveStdioTarget } from '../stdio/stdio-target';
import { LaunchFd } from '../../keeper/keeper-control';

/**
 * A terminal the task's pod keeper holds (docs/keeper-protocol.md, `L` with a console
 * socket): the keeper binds the console socket, receives runc's master and copies it to
 * `O` and `N` into it, so the terminal outlives the serving process. This opens what
 * TerminalStdio would copy to and from, hands it over by role, and keeps nothing once
 * the keeper has its copies: stdout's FIFO as `O` (read-write, non-blocking) and its
 * holder `H`, or the file as `O`; stdin's FIFO as `N` (non-blocking) and its writer `I`,
 * which CloseIO's `C` closes. A regular file cannot be watched by the keeper: it is
 * copied here into a pipe whose read end is `N`.
 */
export class KeptTerminal {
  /** Where the keeper binds the console socket, in a short private directory (107-byte socket paths). */
  readonly consoleSocket: string;
  private readonly dir: string;
  private readonly roles: LaunchFd[] = [];
  private holder: FifoHolder | undefined;
  private stdinFifo: StdinFifo | undefined;
  private fileInput: { source: Readable; sink: Socket } | undefined;

  constructor(stdio: Stdio, subject: string) {
    const stdin = resolveStdioTarget(stdio.stdin, 'stdin', subject);
    const stdout = resolveStdioTarget(stdio.stdout, 'stdout', subject);
    this.dir = mkdtempSync(join(tmpdir(), 'skiff-pty-'));
    this.consoleSocket = join(this.dir, 'pty.sock');
    try {
      if (stdout.kind === 'fifo') {
        this.holder = new FifoHolder(stdout.path);
        this.roles.push({ role: 'H', fd: this.holder.fd });
        this.roles.push({ role: 'O', fd: openSync(stdout.path, constants.O_RDWR | constants.O_NONBLOCK) });
      } else if (stdout.kind === 'file') {
        this.roles.push({ role: 'O', fd: openOutputFile(stdout.path) });
      }
      if (stdin.kind === 'fifo') {
        this.stdinFifo = new StdinFifo(stdin.path);
        this.roles.push({ role: 'N', fd: this.stdinFifo.openForShim() });
        this.roles.push({ role: 'I', fd: this.stdinFifo.keepaliveFd as number });
      } else if (stdin.kind === 'file') {
        const [read, write] = nativeAddon().pipe();
        this.roles.push({ role: 'N', fd: read });
        this.fileInput = { source: createReadStream(stdin.path), sink: new Socket({ fd: write, readable: false }) };
      }
    } catch (err) {
      this.release();
      throw err;
    }
  }

  /** The descriptors for the keeper, by role. */
  get fds(): readonly LaunchFd[] {
    return this.roles;
  }

  /** The keeper has its copies: drop this process's, and feed a file stdin. */
  launched(): void {
    const input = this.fileInput;
    if (input !== undefined) {
      input.source.on('error', () => input.sink.destroy());
      input.sink.on('error', () => input.source.destroy());
      input.source.pipe(input.sink);
      this.fileInput = undefined;
    }
    this.closeOwn();
  }

  release(): void {
    if (this.fileInput !== undefined) {
      this.fileInput.source.destroy();
      this.fileInput.sink.destroy();
      this.fileInput = undefined;
    }
    this.closeOwn();
  }

  private closeOwn(): void {
    for (const { role, fd } of this.roles.splice(0)) {
      // The holder and the stdin writer close through their owners.
      if (role !== 'H' && role !== 'I') closeSync(fd);
    }
    this.holder?.close();
    this.holder = undefined;
    this.stdinFifo?.closeWriter();
    this.stdinFifo = undefined;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
