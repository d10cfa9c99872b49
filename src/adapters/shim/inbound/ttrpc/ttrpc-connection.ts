import { Socket } from 'node:net';
import { Frame, FrameType, MAX_PAYLOAD_LENGTH, encodeFrame } from '../../wire/ttrpc/frame';
import { FrameReader } from '../../wire/ttrpc/frame-reader';
import { ttrpc } from '../../wire/proto/generated/ttrpc/request';
import { RpcCode } from '../../wire/rpc-code';
import { dispatch, statusResponse, TtrpcServices } from './ttrpc-dispatch';

/**
 * One client connection (ttrpc server.go serverConn). Every request runs at once and
 * is answered when it completes, so a Wait that lasts the life of a task never holds
 * back the State after it; each reply is one write, so replies never interleave.
 */
export class TtrpcConnection {
  private inFlight = 0;
  private idle: (() => void) | undefined;
  private paused = false;

  constructor(
    private readonly socket: Socket,
    private readonly services: TtrpcServices,
  ) {
    const reader = new FrameReader({
      frame: (frame) => this.onFrame(frame),
      oversize: (header) =>
        this.send(
          header.streamId,
          statusResponse(
            RpcCode.RESOURCE_EXHAUSTED,
            `message length ${header.length} exceed maximum message size of ${MAX_PAYLOAD_LENGTH}`,
          ),
        ),
    });
    socket.on('data', (chunk: Buffer) => {
      try {
        reader.push(chunk);
      } catch {
        // A fault of ours on this connection's bytes ends this connection only, never the shim.
        socket.destroy();
      }
    });
    // EPIPE or ECONNRESET: the peer is gone and 'close' follows. Its calls run to the
    // end (a Create half done must not be abandoned); their replies are dropped.
    socket.on('error', () => undefined);
    socket.on('drain', () => {
      if (this.paused) {
        this.paused = false;
        socket.resume();
      }
    });
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
    this.inFlight++;
    void dispatch(this.services, request).then((response) => {
      this.send(frame.streamId, response);
      if (--this.inFlight === 0) this.idle?.();
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
