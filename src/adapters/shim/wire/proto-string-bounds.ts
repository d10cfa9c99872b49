import { BinaryReader } from 'google-protobuf';

/**
 * google-protobuf 3.21 reads a string field byte by byte for as long as its length says,
 * even past the end of the bytes: one request whose string length read 4 GiB (truncated or
 * crafted) kept a serving process busy for minutes, answering no container. Here a string
 * that runs past the end throws, which the decoders' callers answer INVALID_ARGUMENT.
 * Imported for this effect where requests are decoded (inbound/ttrpc/ttrpc-connection.ts, codec/task-codec.ts).
 */
const reader = BinaryReader.prototype;
const readString = reader.readString;

reader.readString = function boundedReadString(this: BinaryReader): string {
  const bytes = this.getBuffer();
  let at = this.getCursor();
  let length = 0;
  for (let shift = 0; shift < 64; shift += 7) {
    const b = bytes[at++] as number | undefined;
    if (b === undefined) break;
    length += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) {
      if (at + length <= bytes.length) return readString.call(this);
      break;
    }
  }
  throw new Error(`a string field runs past the end of the message (${bytes.length} bytes)`);
};
