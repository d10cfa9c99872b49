import { closeSync, constants, openSync } from 'node:fs';
import { nativeAddon } from '../../../os/native-addon';

const DRAIN_POLL_MS = 20;

/**
 * The shim's own read-write descriptor on an output FIFO (containerd keeps one too).
 * While it is open the FIFO always has a reader, so a writer never gets SIGPIPE and
 * output waits in the pipe for a reader that attaches late or comes back. It is
 * closed once the process has exited and the pipe is drained (so an attached reader
 * sees end-of-file), or at Delete.
 */
export class FifoHolder {
  readonly fd: number;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(readonly path: string) {
    // O_RDWR never blocks on a FIFO (Linux), and is left blocking so it can be handed to a process.
    this.fd = openSync(path, constants.O_RDWR);
  }

  /** Closes as soon as nothing unread is left in the pipe. */
  closeWhenDrained(): void {
    if (this.closed || this.timer !== undefined) return;
    const poll = () => {
      let pending = 0;
      try {
        pending = nativeAddon().fionread(this.fd);
      } catch {
        pending = 0;
      }
      if (pending === 0) {
        this.close();
      } else {
        this.timer = setTimeout(poll, DRAIN_POLL_MS).unref();
      }
    };
    poll();
  }

  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
