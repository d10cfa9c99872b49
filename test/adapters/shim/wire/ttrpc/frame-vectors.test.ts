import { Frame, FrameHeader, oversizeMessage } from '../../../../../src/adapters/shim/wire/ttrpc/frame';
import { FrameReader } from '../../../../../src/adapters/shim/wire/ttrpc/frame-reader';
import { ttrpc } from '../../../../../src/adapters/shim/wire/proto/generated/ttrpc/request';
import { RpcCode } from '../../../../../src/adapters/shim/wire/rpc-code';
import { cuts, readVectors, vectorBytes } from '../../../../support/vectors';

/**
 * The shared ttrpc vectors (test/vectors/ttrpc/) through the serving process's frame reader; the
 * keeper's relay reads the same files (test/native/units/ttrpc-vectors.test.c). Each side's
 * reading is written as the vectors' lines, so a difference shows whole.
 */
function methodOf(payload: Buffer): string {
  try {
    return ttrpc.Request.deserializeBinary(payload).method;
  } catch {
    return ''; // not protobuf: no method
  }
}

function read(input: Buffer, cut: number): string[] {
  const lines: string[] = [];
  const refusals: string[] = [];
  const reader = new FrameReader({
    frame: (f: Frame) => {
      lines.push(`frame ${f.streamId} ${f.type} ${f.flags} ${f.payload.toString('hex')}`.trimEnd());
      const method = f.type === 1 ? methodOf(f.payload) : '';
      if (method !== '') lines.push(`method ${method}`);
    },
    oversize: (h: FrameHeader) =>
      refusals.push(`refused ${h.streamId} ${RpcCode.RESOURCE_EXHAUSTED} ${oversizeMessage(h.length)}`),
  });
  reader.push(input.subarray(0, cut));
  reader.push(input.subarray(cut));
  return [...lines, ...refusals, ...(reader.inFrame ? ['incomplete'] : [])];
}

describe('the ttrpc vectors shared with the keeper', () => {
  it.each(readVectors('ttrpc'))('$name', ({ input, lines }) => {
    // Frames in order, then refusals in order: the keeper answers containerd on its own queue.
    const expected = [
      ...lines
        .filter(({ key }) => key === 'frame' || key === 'method')
        .map(({ key, rest }) => {
          if (key !== 'frame') return `${key} ${rest}`;
          const [stream, type, flags, ...payload] = rest.split(' ');
          return `frame ${stream} ${type} ${flags} ${vectorBytes(payload.join(' ')).toString('hex')}`.trimEnd();
        }),
      ...lines.filter(({ key }) => key === 'refused').map(({ rest }) => `refused ${rest}`),
      ...lines.filter(({ key }) => key === 'incomplete').map(() => 'incomplete'),
    ];
    // The first cut read otherwise, whole (jest's diff of every cut would be slow for long vectors).
    const wrong = cuts(input.length).find((cut) => read(input, cut).join('\n') !== expected.join('\n'));
    if (wrong !== undefined) expect({ cut: wrong, read: read(input, wrong) }).toEqual({ cut: wrong, read: expected });
  });
});
