/**
 * The control connection's messages (docs/keeper-protocol.md, "The control connection"):
 * length u32 BE (N), a type byte, N-1 bytes of fields each ended by \0.
 */
export const CONTROL_MESSAGE_MAX = 1 << 20;

export interface ControlMessage {
  readonly type: string;
  readonly fields: readonly string[];
}

export function encodeControl(type: string, fields: readonly string[]): Buffer {
  const body = Buffer.from(fields.map((f) => `${f}\0`).join(''), 'utf8');
  const out = Buffer.alloc(5 + body.length);
  out.writeUInt32BE(1 + body.length, 0);
  out.write(type, 4, 'latin1');
  body.copy(out, 5);
  return out;
}

/**
 * Whole messages at the start of `bytes`, and what is left. `malformed`: after those messages a
 * length or a field breaks the protocol, and the connection is to be closed; the messages before
 * it are taken all the same, as the keeper takes its own (native/keeper/control.c).
 */
export function decodeControl(bytes: Buffer): { messages: ControlMessage[]; rest: Buffer; malformed: boolean } {
  const messages: ControlMessage[] = [];
  let off = 0;
  while (bytes.length - off >= 4) {
    const n = bytes.readUInt32BE(off);
    const bad = () => ({ messages, rest: bytes.subarray(off), malformed: true });
    if (n === 0 || n > CONTROL_MESSAGE_MAX) return bad();
    if (bytes.length - off - 4 < n) break;
    const body = bytes.subarray(off + 5, off + 4 + n);
    if (body.length > 0 && body[body.length - 1] !== 0) return bad();
    const text = body.toString('utf8');
    messages.push({
      type: String.fromCharCode(bytes[off + 4]),
      fields: text === '' ? [] : text.slice(0, -1).split('\0'),
    });
    off += 4 + n;
  }
  return { messages, rest: bytes.subarray(off), malformed: false };
}
