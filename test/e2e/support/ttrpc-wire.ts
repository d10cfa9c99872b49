import { connect, Socket } from 'node:net';

/**
 * ttrpc by hand, for holding the server to the wire format: frames and the
 * Request/Response messages are encoded and decoded here byte by byte, not with the
 * project's codec (ttrpc channel.go and types.go, v1.1.1).
 */

function varint(n: number): Buffer {
  const bytes: number[] = [];
  let v = BigInt(n);
  do {
    const low = Number(v & 0x7fn);
    v >>= 7n;
    bytes.push(v > 0n ? low | 0x80 : low);
  } while (v > 0n);
  return Buffer.from(bytes);
}

function field(tag: number, value: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), varint(value.length), value]);
}

/** A ttrpc Request message: service=1, method=2, payload=3, timeout_nano=4. */
export function requestMessage(
  service: string,
  method: string,
  payload: Uint8Array = Buffer.alloc(0),
  timeoutNano = 0,
): Buffer {
  const parts = [field(0x0a, Buffer.from(service)), field(0x12, Buffer.from(method))];
  if (payload.length > 0) parts.push(field(0x1a, Buffer.from(payload)));
  if (timeoutNano > 0) parts.push(Buffer.concat([Buffer.from([0x20]), varint(timeoutNano)]));
  return Buffer.concat(parts);
}

export function frame(streamId: number, type: number, body: Buffer): Buffer {
  const header = Buffer.alloc(10);
  header.writeUInt32BE(body.length, 0);
  header.writeUInt32BE(streamId, 4);
  header[8] = type;
  return Buffer.concat([header, body]);
}

export function requestFrame(
  streamId: number,
  method: string,
  payload?: Uint8Array,
  service = 'containerd.task.v2.Task',
): Buffer {
  return frame(streamId, 1, requestMessage(service, method, payload));
}

export interface WireReply {
  readonly streamId: number;
  readonly type: number;
  /** The frame's length field: 0 for a success with an empty reply. */
  readonly length: number;
  /** Whether the Response had a status field at all (ttrpc's Go server sends none on success). */
  readonly hasStatus: boolean;
  readonly code: number;
  readonly message: string;
  readonly payload: Buffer;
}

function readVarint(bytes: Buffer, at: number): [number, number] {
  let value = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[at++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if ((b & 0x80) === 0) return [value, at];
  }
}

/** Field number -> value of a message with only varint and length-delimited fields. */
function fields(bytes: Buffer): Map<number, number | Buffer> {
  const out = new Map<number, number | Buffer>();
  let at = 0;
  while (at < bytes.length) {
    const [key, next] = readVarint(bytes, at);
    const [value, after] = readVarint(bytes, next);
    if ((key & 7) === 0) {
      out.set(key >> 3, value);
      at = after;
    } else {
      out.set(key >> 3, bytes.subarray(after, after + value));
      at = after + value;
    }
  }
  return out;
}

export function decodeResponse(streamId: number, type: number, body: Buffer): WireReply {
  const response = fields(body);
  const status = response.get(1) as Buffer | undefined;
  const st = status === undefined ? new Map() : fields(status);
  return {
    streamId,
    type,
    length: body.length,
    hasStatus: status !== undefined,
    code: (st.get(1) as number | undefined) ?? 0,
    message: ((st.get(2) as Buffer | undefined) ?? Buffer.alloc(0)).toString(),
    payload: (response.get(2) as Buffer | undefined) ?? Buffer.alloc(0),
  };
}

export interface WireRequest {
  readonly service: string;
  readonly method: string;
  readonly payload: Buffer;
  readonly timeoutNano: number;
  /** metadata=5, each a KeyValue {key=1, value=2}. */
  readonly metadata: Array<[string, string]>;
}

export function decodeRequest(body: Buffer): WireRequest {
  const metadata: Array<[string, string]> = [];
  let at = 0;
  while (at < body.length) {
    const [key, next] = readVarint(body, at);
    const [length, after] = readVarint(body, next);
    if (key === 0x2a) {
      const kv = fields(body.subarray(after, after + length));
      metadata.push([String(kv.get(1) ?? ''), String(kv.get(2) ?? '')]);
    }
    at = (key & 7) === 0 ? after : after + length;
  }
  const f = fields(body);
  const text = (n: number) => ((f.get(n) as Buffer | undefined) ?? Buffer.alloc(0)).toString();
  return {
    service: text(1),
    method: text(2),
    payload: (f.get(3) as Buffer | undefined) ?? Buffer.alloc(0),
    timeoutNano: (f.get(4) as number | undefined) ?? 0,
    metadata,
  };
}

/** A ttrpc Response message: status=1 {code=1, message=2} when code is given, payload=2. */
export function responseMessage(payload: Buffer, status?: { code: number; message: string }): Buffer {
  const parts: Buffer[] = [];
  if (status !== undefined) {
    const code = status.code === 0 ? Buffer.alloc(0) : Buffer.concat([Buffer.from([0x08]), varint(status.code)]);
    parts.push(field(0x0a, Buffer.concat([code, field(0x12, Buffer.from(status.message))])));
  }
  if (payload.length > 0) parts.push(field(0x12, payload));
  return Buffer.concat(parts);
}

/** One raw connection: write bytes, read the reply frames in the order they arrive. */
export class WireConnection {
  private buffered = Buffer.alloc(0);
  private readonly replies: WireReply[] = [];
  private waiting: (() => void) | undefined;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 10 && this.buffered.length >= 10 + this.buffered.readUInt32BE(0)) {
        const length = this.buffered.readUInt32BE(0);
        this.replies.push(
          decodeResponse(this.buffered.readUInt32BE(4), this.buffered[8], this.buffered.subarray(10, 10 + length)),
        );
        this.buffered = this.buffered.subarray(10 + length);
      }
      this.waiting?.();
    });
    socket.on('error', () => undefined);
  }

  static open(path: string): Promise<WireConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(path, () => resolve(new WireConnection(socket)));
      socket.once('error', reject);
    });
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** Writes one byte at a time, letting the peer read each before the next. */
  async writeByteByByte(bytes: Buffer): Promise<void> {
    for (const byte of bytes) {
      await new Promise<void>((resolve) => this.socket.write(Buffer.from([byte]), () => setTimeout(resolve, 1)));
    }
  }

  /** The next reply in arrival order. */
  async next(timeoutMs = 5000): Promise<WireReply> {
    const deadline = Date.now() + timeoutMs;
    while (this.replies.length === 0) {
      if (Date.now() > deadline) throw new Error('no ttrpc reply arrived');
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 20);
      });
    }
    return this.replies.shift() as WireReply;
  }

  /** Replies that have arrived and not been taken. */
  get unread(): number {
    return this.replies.length;
  }

  close(): void {
    this.socket.destroy();
  }
}
