import { closeSync, constants, openSync } from 'node:fs';

/**
 * A stdin FIFO. The shim holds a writer (the handle CloseIO closes, as in
 * containerd) so the process does not read end-of-file before the client has even
 * opened the FIFO; once CloseIO closed it, end-of-file arrives when the client's
 * writer is gone too.
 */
export class StdinFifo {
  private keepalive: number | undefined;

  constructor(readonly path: string) {
    this.keepalive = openSync(path, constants.O_RDWR);
  }

  /** The writer CloseIO closes, while open (a pod keeper holds a copy: docs/keeper-protocol.md, role `I`). */
  get keepaliveFd(): number | undefined {
    return this.keepalive;
  }

  /** A non-blocking read descriptor for the shim's own copy (terminal mode). */
  openForShim(): number {
    return openSync(this.path, constants.O_RDONLY | constants.O_NONBLOCK);
  }

  closeWriter(): void {
    if (this.keepalive === undefined) return;
    closeSync(this.keepalive);
    this.keepalive = undefined;
  }
}
