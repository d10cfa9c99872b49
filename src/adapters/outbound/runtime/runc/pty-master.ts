import { write } from 'node:fs';
import { ReadStream } from 'node:tty';
import { nativeAddon } from '../../os/native-addon';
import { PtyEnd } from '../stdio/terminal-stdio';

/** Retry delay for a write the full terminal refused (EAGAIN). */
const WRITE_RETRY_MS = 5;

/**
 * The master side of a container's pseudo-terminal, received from runc over the console
 * socket (non-blocking). Reads go through a tty stream on Node's loop; writes are queued
 * and retried on EAGAIN (node-pty does the same), so a process that does not read its
 * terminal never blocks the shim. `ended` settles when the terminal has no writer left
 * (EIO) or the master is closed.
 */
export class PtyMaster implements PtyEnd {
  readonly ended: Promise<void>;
  private readonly stream: ReadStream;
  private readonly queue: Buffer[] = [];
  private closed = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(readonly fd: number) {
    this.stream = new ReadStream(fd);
    this.ended = new Promise((resolve) => {
      this.stream.once('end', resolve);
      this.stream.once('close', resolve);
      // EIO: the last process holding the terminal is gone; anything else also ends reading.
      this.stream.once('error', resolve);
    });
  }

  onData(listener: (data: Buffer) => void): void {
    this.stream.on('data', listener);
  }

  pause(): void {
    this.stream.pause();
  }

  resume(): void {
    this.stream.resume();
  }

  write(data: Buffer): void {
    if (this.closed || data.length === 0) return;
    this.queue.push(data);
    if (this.queue.length === 1) this.flush();
  }

  resize(cols: number, rows: number): void {
    if (!this.closed) nativeAddon().setWindowSize(this.fd, cols, rows);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.retry !== undefined) clearTimeout(this.retry);
    this.queue.length = 0;
    this.stream.destroy();
  }

  private flush(): void {
    this.retry = undefined;
    const head = this.queue[0];
    if (this.closed || head === undefined) return;
    write(this.fd, head, (err, written) => {
      if (this.closed) return;
      if (err !== null) {
        if (err.code === 'EAGAIN') this.retry = setTimeout(() => this.flush(), WRITE_RETRY_MS);
        else this.queue.length = 0;
        return;
      }
      if (written < head.length) this.queue[0] = head.subarray(written);
      else this.queue.shift();
      this.flush();
    });
  }
}
