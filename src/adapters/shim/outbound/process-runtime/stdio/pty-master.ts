import { readSync, write } from 'node:fs';
import type { ReadStream } from 'node:tty';
import { nativeAddon } from '../../../os/native-addon';
import { PtyEnd } from './terminal-stdio';

/** Retry delay for a write the full terminal refused (EAGAIN). */
const WRITE_RETRY_MS = 5;
/** Read size for what is left in the terminal at the end (it hands out at most 4 KiB a read). */
const REST_CHUNK = 64 * 1024;
/** How long an exit waits for the terminal's last output (its writers are dying with it). */
const DRAIN_BOUND_MS = 2000;
/** A new terminal's size when nothing says otherwise (the traditional 80x24). */
export const DEFAULT_COLS = 80;
export const DEFAULT_ROWS = 24;

/**
 * The master side of a process's pseudo-terminal, non-blocking: received from runc over
 * the console socket, or opened by the native runtime. Reads go through a tty stream on
 * Node's loop; writes are queued and retried on EAGAIN, so a process that does not read
 * its terminal never blocks the shim. `ended` settles when the terminal has no writer
 * left (EIO) and everything it held was read, or when the master is closed.
 */
export class PtyMaster implements PtyEnd {
  readonly ended: Promise<void>;
  private readonly stream: ReadStream;
  private readonly queue: Buffer[] = [];
  private readonly listeners: Array<(data: Buffer) => void> = [];
  private closed = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(readonly fd: number) {
    // node:tty only for a terminal: most containers have none, and it costs the serving
    // process 0.2 MB of RSS (docs/performance.md, "The serving process's memory").
    const { ReadStream: TtyStream } = require('node:tty') as typeof import('node:tty');
    // Half-open: the descriptor stays open after 'end', so what is left can still be read.
    this.stream = new TtyStream(fd, { allowHalfOpen: true });
    this.ended = new Promise((resolve) => {
      this.stream.once('end', () => {
        this.readRest();
        resolve();
      });
      this.stream.once('close', resolve);
      // EIO: the last process holding the terminal is gone and nothing is left unread.
      this.stream.once('error', resolve);
    });
  }

  onData(listener: (data: Buffer) => void): void {
    this.listeners.push(listener);
    this.stream.on('data', listener);
  }

  pause(): void {
    this.stream.pause();
  }

  resume(): void {
    this.stream.resume();
  }

  /**
   * After the process exited: settles once its last output was read (the terminal's
   * writers are gone) or after a bound, since a child that outlives the process and
   * keeps the terminal open would otherwise hold the exit back for ever.
   */
  async drained(boundMs = DRAIN_BOUND_MS): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.ended, new Promise((resolve) => (timer = setTimeout(resolve, boundMs)))]);
    clearTimeout(timer);
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

  /**
   * libuv ends the stream early: on the hang-up that follows the last writer's close it
   * reports end-of-file when its last read was short, which a terminal's reads (4 KiB at
   * most) always are, while up to the terminal's whole buffer is still unread. No writer
   * is left, so the rest is read here until the terminal says EIO (or anything else), and
   * handed over regardless of pause: it is bounded by the terminal's buffer.
   */
  private readRest(): void {
    const buffer = Buffer.allocUnsafe(REST_CHUNK);
    for (;;) {
      let n = 0;
      try {
        n = readSync(this.fd, buffer);
      } catch {
        return;
      }
      if (n === 0) return;
      const chunk = Buffer.from(buffer.subarray(0, n));
      for (const listener of this.listeners) listener(chunk);
    }
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
