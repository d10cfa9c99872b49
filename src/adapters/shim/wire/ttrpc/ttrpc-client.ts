import { connect, Socket } from 'node:net';
import { Frame, FrameType, encodeFrame, oversizeMessage } from './frame';
import { FrameReader } from './frame-reader';
import { ttrpc } from '../proto/generated/ttrpc/request';
import { RpcCode } from '../rpc-code';
import { TtrpcError } from './ttrpc-error';
import { unixPath } from '../../os/unix-address';

export interface CallOptions {
  /** Fails the call with DEADLINE_EXCEEDED after this long; also sent as the request's timeout_nano. */
  readonly timeoutMs?: number;
  /** Request metadata, e.g. containerd-namespace-ttrpc for calls into containerd. */
  readonly metadata?: Readonly<Record<string, string>>;
}

interface PendingCall {
  resolve(payload: Buffer): void;
  reject(err: TtrpcError): void;
  timer: NodeJS.Timeout | undefined;
}

/** The first stream id and the step: client-initiated streams are odd (ttrpc client.go). */
const FIRST_STREAM_ID = 1;
const MAX_STREAM_ID = 0xffffffff;

/**
 * A ttrpc client on one unix socket connection. Calls are multiplexed by stream id,
 * any number in flight, each settled by its own reply, so they complete in any order.
 * The socket keeps the process alive only while a call is in flight. Once the
 * connection is gone every call fails with UNAVAILABLE, as ttrpc's ErrClosed; make a
 * new client to reconnect.
 */
export class TtrpcClient {
  private readonly socket: Socket;
  private readonly pending = new Map<number, PendingCall>();
  private nextStreamId = FIRST_STREAM_ID;
  private closedWith: TtrpcError | undefined;

  /** `address`: a socket path, `unix:/path` or `unix:///path`. Connects at once; calls made meanwhile wait. */
  constructor(readonly address: string) {
    const path = unixPath(address);
    const reader = new FrameReader({
      frame: (frame) => this.onFrame(frame),
      oversize: (header) =>
        this.settle(header.streamId, new TtrpcError(RpcCode.RESOURCE_EXHAUSTED, oversizeMessage(header.length))),
    });
    this.socket = connect(path);
    this.socket.unref();
    this.socket.on('data', (chunk: Buffer) => {
      try {
        reader.push(chunk);
      } catch (err) {
        this.fail(new TtrpcError(RpcCode.INTERNAL, `ttrpc: reading from ${path}: ${(err as Error).message}`));
      }
    });
    this.socket.on('error', (err) =>
      this.fail(new TtrpcError(RpcCode.UNAVAILABLE, `ttrpc connection to ${path}: ${err.message}`)),
    );
    this.socket.on('close', () => this.fail(new TtrpcError(RpcCode.UNAVAILABLE, 'ttrpc: closed')));
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  /** Calls `service`/`method` with the serialized request; resolves with the reply's serialized payload. */
  call(service: string, method: string, payload: Uint8Array, options: CallOptions = {}): Promise<Buffer> {
    if (this.closedWith !== undefined) return Promise.reject(this.closedWith);
    if (this.nextStreamId > MAX_STREAM_ID)
      return Promise.reject(new TtrpcError(RpcCode.RESOURCE_EXHAUSTED, 'ttrpc: stream ids used up; make a new client'));
    const streamId = this.nextStreamId;
    this.nextStreamId += 2;
    const metadata = Object.entries(options.metadata ?? {}).map(([key, value]) => new ttrpc.KeyValue({ key, value }));
    const request = new ttrpc.Request({
      service,
      method,
      payload,
      timeout_nano: (options.timeoutMs ?? 0) * 1_000_000,
      metadata,
    });
    return new Promise<Buffer>((resolve, reject) => {
      const timer =
        options.timeoutMs === undefined
          ? undefined
          : setTimeout(
              () =>
                this.settle(
                  streamId,
                  new TtrpcError(
                    RpcCode.DEADLINE_EXCEEDED,
                    `${service}/${method}: no reply within ${options.timeoutMs} ms`,
                  ),
                ),
              options.timeoutMs,
            );
      this.pending.set(streamId, { resolve, reject, timer });
      if (this.pending.size === 1) this.socket.ref();
      this.socket.write(encodeFrame(streamId, FrameType.Request, request.serialize()));
    });
  }

  /** Closes the connection; calls in flight fail with UNAVAILABLE. */
  close(): void {
    this.fail(new TtrpcError(RpcCode.UNAVAILABLE, 'ttrpc: closed'));
  }

  private onFrame(frame: Frame): void {
    if (frame.type !== FrameType.Response) return;
    let response: ttrpc.Response;
    try {
      response = ttrpc.Response.deserialize(frame.payload);
    } catch (err) {
      this.settle(
        frame.streamId,
        new TtrpcError(RpcCode.INTERNAL, `ttrpc: unreadable response: ${(err as Error).message}`),
      );
      return;
    }
    const status = response.has_status ? response.status : undefined;
    if (status !== undefined && status.code !== RpcCode.OK)
      this.settle(frame.streamId, new TtrpcError(status.code, status.message));
    else
      this.settle(
        frame.streamId,
        Buffer.from(response.payload.buffer, response.payload.byteOffset, response.payload.byteLength),
      );
  }

  /** Ends one call, unless it has ended already (a reply after its timeout is dropped). */
  private settle(streamId: number, outcome: Buffer | TtrpcError): void {
    const call = this.pending.get(streamId);
    if (call === undefined) return;
    this.pending.delete(streamId);
    clearTimeout(call.timer);
    if (this.pending.size === 0 && !this.socket.destroyed) this.socket.unref();
    if (outcome instanceof TtrpcError) call.reject(outcome);
    else call.resolve(outcome);
  }

  private fail(err: TtrpcError): void {
    if (this.closedWith !== undefined) return;
    this.closedWith = err;
    this.socket.destroy();
    for (const streamId of [...this.pending.keys()]) this.settle(streamId, err);
  }
}
