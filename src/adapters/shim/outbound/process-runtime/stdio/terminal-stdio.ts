import { createReadStream, createWriteStream, constants, openSync } from 'node:fs';
import { Socket } from 'node:net';
import { Readable, Writable } from 'node:stream';
import { Stdio } from '../../../../../domain/shim/task-process';
import { openOutputFile } from './direct-stdio';
import { FifoHolder } from './fifo-holder';
import { StdinFifo } from './stdin-fifo';
import { resolveStdioTarget } from './stdio-target';

/** The side of a pseudo-terminal the shim copies to and from. */
export interface PtyEnd {
  onData(listener: (data: Buffer) => void): void;
  write(data: Buffer): void;
  pause(): void;
  resume(): void;
}

/**
 * stdio of a process on a pseudo-terminal: the shim copies the terminal's output to
 * `stdout` (there is no separate stderr) and `stdin` into the terminal, pausing the
 * terminal while the output FIFO is full so nothing is dropped.
 */
export class TerminalStdio {
  private readonly holder: FifoHolder | undefined;
  private readonly sink: Writable | undefined;
  private readonly stdinFifo: StdinFifo | undefined;
  private readonly source: Readable | undefined;

  constructor(stdio: Stdio, subject: string) {
    const stdin = resolveStdioTarget(stdio.stdin, 'stdin', subject);
    const stdout = resolveStdioTarget(stdio.stdout, 'stdout', subject);
    try {
      if (stdout.kind === 'fifo') {
        this.holder = new FifoHolder(stdout.path);
        const fd = openSync(stdout.path, constants.O_RDWR | constants.O_NONBLOCK);
        this.sink = new Socket({ fd, readable: false, writable: true });
      } else if (stdout.kind === 'file') {
        this.sink = createWriteStream('', { fd: openOutputFile(stdout.path) });
      }
      if (stdin.kind === 'fifo') {
        this.stdinFifo = new StdinFifo(stdin.path);
        this.source = new Socket({ fd: this.stdinFifo.openForShim(), readable: true, writable: false });
      } else if (stdin.kind === 'file') {
        this.source = createReadStream(stdin.path);
      }
    } catch (err) {
      this.release();
      throw err;
    }
    this.sink?.on('error', () => undefined);
    this.source?.on('error', () => undefined);
  }

  attach(pty: PtyEnd): void {
    const sink = this.sink;
    if (sink !== undefined) {
      sink.on('drain', () => pty.resume());
      pty.onData((data) => {
        if (!sink.write(data)) pty.pause();
      });
    }
    this.source?.on('data', (chunk: Buffer) => pty.write(chunk));
  }

  closeStdin(): void {
    this.stdinFifo?.closeWriter();
  }

  /** The process exited: flush what the shim still buffers, then let readers drain. */
  finish(): void {
    this.closeStdin();
    this.source?.destroy();
    const sink = this.sink;
    if (sink === undefined) return;
    const done = () => {
      sink.destroy();
      this.holder?.closeWhenDrained();
    };
    if (sink.writableLength === 0) done();
    else sink.once('drain', done);
  }

  release(): void {
    this.closeStdin();
    this.source?.destroy();
    this.sink?.destroy();
    this.holder?.close();
  }
}
