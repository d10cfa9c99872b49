/**
 * ttrpc framing (github.com/containerd/ttrpc channel.go, v1.1.1): a 10-byte header
 * (payload length u32 BE, not counting the header; stream id u32 BE; type u8;
 * flags u8), then the payload. Shared by the ttrpc server and client adapters.
 */
export const HEADER_LENGTH = 10;

/** The largest payload either side accepts: 4 MiB, ttrpc's messageLengthMax. */
export const MAX_PAYLOAD_LENGTH = 4 << 20;

/** What answers a frame over the limit (RESOURCE_EXHAUSTED), in ttrpc channel.go's words. */
export function oversizeMessage(length: number): string {
  return `message length ${length} exceed maximum message size of ${MAX_PAYLOAD_LENGTH}`;
}

export const FrameType = {
  Request: 0x1,
  Response: 0x2,
} as const;

export interface FrameHeader {
  readonly length: number;
  readonly streamId: number;
  readonly type: number;
  readonly flags: number;
}

export interface Frame extends FrameHeader {
  readonly payload: Buffer;
}

/** One frame as one buffer, so a reply goes out in one write and never interleaves with another. */
export function encodeFrame(streamId: number, type: number, payload: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(HEADER_LENGTH + payload.length);
  frame.writeUInt32BE(payload.length, 0);
  frame.writeUInt32BE(streamId, 4);
  frame[8] = type;
  frame[9] = 0;
  frame.set(payload, HEADER_LENGTH);
  return frame;
}

export function decodeHeader(bytes: Buffer, offset = 0): FrameHeader {
  return {
    length: bytes.readUInt32BE(offset),
    streamId: bytes.readUInt32BE(offset + 4),
    type: bytes[offset + 8],
    flags: bytes[offset + 9],
  };
}
