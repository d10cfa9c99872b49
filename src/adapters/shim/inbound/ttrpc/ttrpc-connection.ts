import { Socket } from 'node:net';
import '../../wire/proto-length-bounds';
import { Frame, FrameType, encodeFrame, oversizeMessage } from '../../wire/ttrpc/frame';
import { FrameReader } from '../../wire/ttrpc/frame-reader';
import { ttrpc } from '../../wire/proto/generated/ttrpc/request';
import { RpcCode } from '../../wire/rpc-code';
import { dispatch, statusResponse, TtrpcServices } from './ttrpc-dispatch';
import { READ_ONLY_METHODS } from './read-only-methods';

/**
 * One client connection (ttrpc server.go serverConn). Every request runs at once and
 * is answered when it completes, so a Wait that lasts the life of a task never holds
 * back the State after it; each reply is one write, so replies never interleave.
 */
export class TtrpcConnection {
  private inFlight = 0;
  /** Calls in flight that change something (not READ_ONLY_METHODS). */
  private changing = 0;
  private idle: (() => void) | undefined;
  private paused = false;
  private peerEnded = false;
  private handingOver = false;
  readonly closed: Promise<void>;

  constructor(
    private readonly socket: Socket,
    private readonly services: TtrpcServices,
    /** Bytes read already (after a keeper's preamble); the socket is paused until this takes it. */
    first: Buffer = Buffer.alloc(0),
  ) {
    const reader = new FrameReader({
      frame: (frame) => this.onFrame(frame),
      oversize: (header) =>
        this.send(header.streamId, statusResponse(RpcCode.RESOURCE_EXHAUSTED, oversizeMessage(header.length))),
    });
    const push = (chunk: Buffer) => {
      try {
        reader.push(chunk);
      } catch {
        // A fault of ours on this connection's bytes ends this connection only, never the shim.
        socket.destroy();
      }
    };
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    // Half-open, so that a hand-over's shut reading side (which reads as the peer's end) still
    // lets the replies owed go out; a peer that really ends its side is ended at once, as before.
    socket.allowHalfOpen = true;
    socket.on('end', () => {
      this.peerEnded = true;
      if (this.handingOver) this.leaveIfDone();
      else socket.end();
    });
    push(first);
    socket.on('data', push);
    // EPIPE or ECONNRESET: the peer is gone and 'close' follows. Its calls run to the
    // end (a Create half done must not be abandoned); their replies are dropped.
    socket.on('error', () => undefined);
    socket.on('drain', () => {
      if (this.paused) {
        this.paused = false;
        socket.resume();
      }
    });
    if (!this.paused) socket.resume();
  }

  /** Ends the connection once no call is in flight; replies already written still go out. */
  endWhenIdle(): Promise<void> {
    return new Promise((resolve) => {
      this.idle = () => {
        this.socket.end();
        resolve();
      };
      if (this.inFlight === 0) this.idle();
    });
  }

  destroy(): void {
    this.socket.destroy();
  }

  /**
   * A hand-over (docs/upgrade.md): `stopReading` shuts the reading side, so the peer can send
   * no more; what it sent before is read and served. Once the peer's end is read and every
   * call that changes something is answered, the connection closes: the read-only calls still
   * in flight (a Wait) go to the next serving process with the pod keeper.
   */
  handOver(stopReading: (socket: Socket) => void): Promise<void> {
    this.handingOver = true;
    try {
      stopReading(this.socket);
    } catch {
      // Closed meanwhile: 'close' settles it.
    }
    this.leaveIfDone();
    return this.closed;
  }

  private leaveIfDone(): void {
    // end, not destroy: the replies written so far go out first.
    if (this.peerEnded && this.changing === 0) this.socket.end();
  }

  private onFrame(frame: Frame): void {
    // Other types (ttrpc 1.2's streaming Data frames) are ignored, as server.go does.
    if (frame.type !== FrameType.Request) return;
    let request: ttrpc.Request;
    try {
      request = ttrpc.Request.deserialize(frame.payload);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.send(frame.streamId, statusResponse(RpcCode.INVALID_ARGUMENT, `unmarshal request error: ${reason}`));
      return;
    }
    if (frame.streamId % 2 !== 1) {
      this.send(
        frame.streamId,
        statusResponse(RpcCode.INVALID_ARGUMENT, 'StreamID must be odd for client initiated streams'),
      );
      return;
    }
    const changes = !READ_ONLY_METHODS.has(request.method);
    this.inFlight++;
    if (changes) this.changing++;
    void dispatch(this.services, request).then((response) => {
      this.send(frame.streamId, response);
      if (changes) this.changing--;
      if (--this.inFlight === 0) this.idle?.();
      if (this.handingOver) this.leaveIfDone();
    });
  }

  private send(streamId: number, response: ttrpc.Response): void {
    if (!this.socket.writable) return;
    if (!this.socket.write(encodeFrame(streamId, FrameType.Response, response.serialize())) && !this.paused) {
      // A peer that sends requests but does not read the replies is not read either until it does.
      this.paused = true;
      this.socket.pause();
    }
  }
}
