import {
  decodeHeader,
  encodeFrame,
  Frame,
  FrameHeader,
  FrameType,
  HEADER_LENGTH,
  MAX_PAYLOAD_LENGTH,
} from '../../../../../src/adapters/shim/wire/ttrpc/frame';
import { FrameReader } from '../../../../../src/adapters/shim/wire/ttrpc/frame-reader';

function collect(max?: number): { reader: FrameReader; frames: Frame[]; oversized: FrameHeader[] } {
  const frames: Frame[] = [];
  const oversized: FrameHeader[] = [];
  const reader = new FrameReader({ frame: (f) => frames.push(f), oversize: (h) => oversized.push(h) }, max);
  return { reader, frames, oversized };
}

const text = (f: Frame) => f.payload.toString();

describe('ttrpc framing', () => {
  it('writes the 10-byte header: length (without the header) and stream id big-endian, type, flags 0', () => {
    const frame = encodeFrame(0x01020304, FrameType.Response, Buffer.from('abc'));
    expect([...frame]).toEqual([0, 0, 0, 3, 1, 2, 3, 4, 2, 0, 0x61, 0x62, 0x63]);
    expect(decodeHeader(frame)).toEqual({ length: 3, streamId: 0x01020304, type: 2, flags: 0 });
  });

  it('reads several frames from one chunk, an empty payload among them', () => {
    const { reader, frames } = collect();
    reader.push(
      Buffer.concat([
        encodeFrame(1, 1, Buffer.from('one')),
        encodeFrame(3, 2, Buffer.alloc(0)),
        encodeFrame(5, 1, Buffer.from('three')),
      ]),
    );
    expect(frames.map((f) => [f.streamId, f.type, text(f)])).toEqual([
      [1, 1, 'one'],
      [3, 2, ''],
      [5, 1, 'three'],
    ]);
    expect(reader.pending).toBe(0);
  });

  it('reads a frame that arrives one byte at a time, and one split across two frames', () => {
    const { reader, frames } = collect();
    const bytes = Buffer.concat([
      encodeFrame(7, 1, Buffer.from('hello')),
      encodeFrame(9, 1, Buffer.alloc(0)),
      encodeFrame(11, 1, Buffer.from('x')),
    ]);
    for (let i = 0; i < bytes.length; i++) {
      reader.push(bytes.subarray(i, i + 1));
      if (i === HEADER_LENGTH + 3) expect(frames).toHaveLength(0);
    }
    expect(frames.map((f) => [f.streamId, text(f)])).toEqual([
      [7, 'hello'],
      [9, ''],
      [11, 'x'],
    ]);
    const split = encodeFrame(13, 1, Buffer.from('split'));
    reader.push(split.subarray(0, 4));
    reader.push(Buffer.concat([split.subarray(4), encodeFrame(15, 1, Buffer.from('next')).subarray(0, 12)]));
    expect(frames.map((f) => f.streamId)).toEqual([7, 9, 11, 13]);
    expect(reader.pending).toBe(2);
  });

  it('accepts a payload of exactly the limit', () => {
    const { reader, frames, oversized } = collect(16);
    reader.push(encodeFrame(1, 1, Buffer.alloc(16, 0x61)));
    expect(frames).toHaveLength(1);
    expect(oversized).toHaveLength(0);
  });

  it('skips an oversized payload without holding it, reports it once its last byte is gone, and reads on', () => {
    const { reader, frames, oversized } = collect();
    const header = Buffer.alloc(HEADER_LENGTH);
    header.writeUInt32BE(MAX_PAYLOAD_LENGTH + 1, 0);
    header.writeUInt32BE(21, 4);
    header[8] = FrameType.Request;
    reader.push(header);
    const piece = Buffer.alloc(1 << 20);
    for (let i = 0; i < 4; i++) {
      reader.push(piece);
      expect(reader.pending).toBe(0);
    }
    expect(oversized).toHaveLength(0);
    reader.push(Buffer.concat([Buffer.from([0x7a]), encodeFrame(23, 1, Buffer.from('after'))]));
    expect(oversized).toEqual([{ length: MAX_PAYLOAD_LENGTH + 1, streamId: 21, type: FrameType.Request, flags: 0 }]);
    expect(frames.map((f) => [f.streamId, text(f)])).toEqual([[23, 'after']]);
  });

  it('stays linear when a large frame comes in many tiny chunks', () => {
    const { reader, frames } = collect();
    const bytes = encodeFrame(1, 1, Buffer.alloc(200_000, 0x62));
    const started = Date.now();
    for (let i = 0; i < bytes.length; i += 3) reader.push(bytes.subarray(i, i + 3));
    expect(frames[0].payload.equals(Buffer.alloc(200_000, 0x62))).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
