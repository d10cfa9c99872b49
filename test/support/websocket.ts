import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { Socket } from 'node:net';

/**
 * A minimal WebSocket client (RFC 6455) for the tests: containerd's CRI streaming server
 * (Exec over the channel.k8s.io subprotocols) and Node's inspector on loopback. Node 20
 * has no WebSocket client of its own; messages are whole (fragments joined), frames from
 * the client are masked as the RFC requires.
 */
export interface WebSocketMessage {
  readonly binary: boolean;
  readonly data: Buffer;
}

export class WebSocketClient {
  private buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  private fragmentBinary = false;
  private readonly waiting: ((message: WebSocketMessage | undefined) => void)[] = [];
  private readonly queued: (WebSocketMessage | undefined)[] = [];
  private closed = false;

  private constructor(
    private readonly socket: Socket,
    head: Buffer,
    /** The subprotocol the server chose. */
    readonly protocol: string | undefined,
  ) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('close', () => this.end());
    socket.on('error', () => this.end());
    if (head.length > 0) this.receive(head);
  }

  /** Opens `url` (ws:// or http://) offering `protocols`; rejects with the HTTP status when refused. */
  static connect(url: string, protocols: readonly string[] = []): Promise<WebSocketClient> {
    const target = new URL(url.replace(/^ws/, 'http'));
    const headers: Record<string, string> = {
      Connection: 'Upgrade',
      Upgrade: 'websocket',
      'Sec-WebSocket-Version': '13',
      'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
      Origin: `http://${target.host}`,
    };
    if (protocols.length > 0) headers['Sec-WebSocket-Protocol'] = protocols.join(', ');
    return new Promise((resolve, reject) => {
      const req = request(target, { headers });
      req.on('upgrade', (res, socket, head) =>
        resolve(
          new WebSocketClient(socket as Socket, head, res.headers['sec-websocket-protocol'] as string | undefined),
        ),
      );
      req.on('response', (res) => reject(new Error(`${url}: HTTP ${res.statusCode} instead of a WebSocket upgrade`)));
      req.on('error', reject);
      req.end();
    });
  }

  /** The next message, or undefined once the connection is closed. */
  next(): Promise<WebSocketMessage | undefined> {
    if (this.queued.length > 0) return Promise.resolve(this.queued.shift());
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Every message until the server closes the connection. */
  async all(): Promise<WebSocketMessage[]> {
    const messages: WebSocketMessage[] = [];
    for (let m = await this.next(); m !== undefined; m = await this.next()) messages.push(m);
    return messages;
  }

  send(data: string | Buffer): void {
    const binary = typeof data !== 'string';
    this.frame(binary ? 0x2 : 0x1, binary ? data : Buffer.from(data));
  }

  close(): void {
    if (!this.closed) this.frame(0x8, Buffer.alloc(0));
    this.socket.end();
  }

  private frame(opcode: number, payload: Buffer): void {
    const mask = randomBytes(4);
    const length = payload.length;
    const header =
      length < 126
        ? Buffer.from([0x80 | opcode, 0x80 | length])
        : length < 65536
          ? Buffer.from([0x80 | opcode, 0x80 | 126, length >> 8, length & 0xff])
          : Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | 127]), bigEndian64(length)]);
    const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]));
    this.socket.write(Buffer.concat([header, mask, masked]));
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const frame = parseFrame(this.buffer);
      if (frame === undefined) return;
      this.buffer = this.buffer.subarray(frame.size);
      this.handle(frame.fin, frame.opcode, frame.payload);
    }
  }

  private handle(fin: boolean, opcode: number, payload: Buffer): void {
    if (opcode === 0x8) return this.end();
    if (opcode === 0x9) return this.frame(0xa, payload);
    if (opcode === 0xa) return;
    if (opcode !== 0x0) this.fragmentBinary = opcode === 0x2;
    this.fragments.push(payload);
    if (!fin) return;
    this.deliver({ binary: this.fragmentBinary, data: Buffer.concat(this.fragments) });
    this.fragments = [];
  }

  private deliver(message: WebSocketMessage | undefined): void {
    const waiter = this.waiting.shift();
    if (waiter !== undefined) waiter(message);
    else this.queued.push(message);
  }

  private end(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
    while (this.waiting.length > 0) this.deliver(undefined);
  }
}

function bigEndian64(value: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE(BigInt(value));
  return out;
}

/** One unmasked server frame at the start of `data`, or undefined when it has not all arrived. */
function parseFrame(data: Buffer): { fin: boolean; opcode: number; payload: Buffer; size: number } | undefined {
  if (data.length < 2) return undefined;
  let length = data[1] & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (data.length < 4) return undefined;
    length = data.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (data.length < 10) return undefined;
    length = Number(data.readBigUInt64BE(2));
    offset = 10;
  }
  if (data.length < offset + length) return undefined;
  return {
    fin: (data[0] & 0x80) !== 0,
    opcode: data[0] & 0x0f,
    payload: data.subarray(offset, offset + length),
    size: offset + length,
  };
}
