import { BinaryReader } from 'google-protobuf';

/**
 * google-protobuf 3.21 trusts a length-delimited field's length. A string is read byte by
 * byte for as long as its length says, and an embedded message is decoded field by field
 * up to its length, even past the end of the bytes (reading past it yields zeros, which
 * decode as fields to skip). One request whose length read 4 GiB (truncated or crafted)
 * kept a serving process busy for minutes, answering no container; 2^63 never ends.
 * Here a string, bytes or embedded message that runs past the end of the message it sits
 * in throws, which the decoders' callers answer INVALID_ARGUMENT. Imported for this effect
 * where requests are decoded (inbound/ttrpc/ttrpc-connection.ts, codec/task-codec.ts).
 */
const KINDS = { readString: 'a string', readBytes: 'a bytes', readMessage: 'an embedded message' } as const;

/** Where the length-delimited field at `at` ends, or -1 when it runs past `end`. */
function fieldEnd(bytes: Uint8Array, at: number, end: number): number {
  let length = 0;
  for (let shift = 0; shift < 64; shift += 7) {
    const b = bytes[at++] as number | undefined;
    if (b === undefined || at > end) return -1;
    length += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return at + length <= end ? at + length : -1;
  }
  return -1;
}

/**
 * The end of the embedded message each reader is inside, which google-protobuf keeps to
 * itself: a field must end within it, as protobuf's own decoders require.
 */
const messageEnds = new WeakMap<BinaryReader, number>();

const reader = BinaryReader.prototype as unknown as Record<keyof typeof KINDS, (...args: unknown[]) => unknown>;
for (const name of Object.keys(KINDS) as Array<keyof typeof KINDS>) {
  const read = reader[name];
  reader[name] = function bounded(this: BinaryReader, ...args: unknown[]): unknown {
    const bytes = this.getBuffer();
    const outer = messageEnds.get(this) ?? bytes.length;
    const end = fieldEnd(bytes, this.getCursor(), outer);
    if (end < 0) throw new Error(`${KINDS[name]} field runs past the end of the message (${bytes.length} bytes)`);
    if (name !== 'readMessage') return read.apply(this, args);
    messageEnds.set(this, end);
    try {
      return read.apply(this, args);
    } finally {
      messageEnds.set(this, outer);
    }
  };
}
