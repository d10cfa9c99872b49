import fc from 'fast-check';
import { encodeFrame, Frame, FrameHeader } from '../../../../../src/adapters/shim/wire/ttrpc/frame';
import { FrameReader } from '../../../../../src/adapters/shim/wire/ttrpc/frame-reader';
import { PROPERTY_BUDGET } from '../../../../support/property';

/** The ttrpc frame reader on generated streams: containerd's bytes, cut anywhere, and garbage. */
const MAX = 64; // a small limit, so generated frames go over it often

const frame = fc.record({
  streamId: fc.nat({ max: 0xffffffff }),
  type: fc.nat({ max: 255 }),
  // Short ones, and ones around the limit: just under, at, just over.
  payload: fc.oneof(fc.uint8Array({ maxLength: 8 }), fc.uint8Array({ minLength: MAX - 1, maxLength: MAX + 1 })),
});

function readAll(chunks: readonly Buffer[]): { frames: Frame[]; oversized: FrameHeader[]; reader: FrameReader } {
  const frames: Frame[] = [];
  const oversized: FrameHeader[] = [];
  const reader = new FrameReader({ frame: (f) => frames.push(f), oversize: (h) => oversized.push(h) }, MAX);
  for (const chunk of chunks) reader.push(chunk);
  return { frames, oversized, reader };
}

/** The bytes cut at the given points (any order, any repeats). */
function cut(bytes: Buffer, points: readonly number[]): Buffer[] {
  const at = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  return [...at, bytes.length].map((end, i) => bytes.subarray(i === 0 ? 0 : at[i - 1], end));
}

describe('the ttrpc frame reader on generated streams', () => {
  it('reads every frame within the limit whole and in order, and refuses each over it once, however the bytes are cut', () => {
    fc.assert(
      fc.property(fc.array(frame, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 12 }), (sent, points) => {
        const bytes = Buffer.concat(sent.map((f) => encodeFrame(f.streamId, f.type, f.payload)));
        const { frames, oversized, reader } = readAll(cut(bytes, points));
        const within = sent.filter((f) => f.payload.length <= MAX);
        expect(frames.map((f) => [f.streamId, f.type, f.flags, [...f.payload]])).toEqual(
          within.map((f) => [f.streamId, f.type, 0, [...f.payload]]),
        );
        expect(oversized.map((h) => [h.streamId, h.length])).toEqual(
          sent.filter((f) => f.payload.length > MAX).map((f) => [f.streamId, f.payload.length]),
        );
        expect(reader.inFrame).toBe(false);
      }),
      PROPERTY_BUDGET,
    );
  });

  it('never throws on garbage, and holds no more than one frame of it', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), fc.array(fc.nat(), { maxLength: 12 }), (garbage, points) => {
        const { reader } = readAll(cut(Buffer.from(garbage), points));
        expect(reader.pending).toBeLessThanOrEqual(10 + MAX);
      }),
      PROPERTY_BUDGET,
    );
  });
});
