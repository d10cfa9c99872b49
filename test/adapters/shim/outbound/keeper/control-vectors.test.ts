import { decodeControl, encodeControl } from '../../../../../src/adapters/shim/outbound/keeper/control-message';
import { cuts, readVectors } from '../../../../support/vectors';

/**
 * The shared control vectors (test/vectors/control/) through the serving process's decoder and
 * encoder; the keeper reads the same files (test/native/units/control-vectors.test.c). `keeper`
 * lines are the keeper's judgment of a request, which only it makes: not read here.
 */
function typeLine(type: string): string {
  const code = type.charCodeAt(0);
  return code > 0x20 && code < 0x7f ? `message ${type}` : `message 0x${code.toString(16).padStart(2, '0')}`;
}

/** The input in two reads cut at `cut`, as keeper-control.ts takes them: what is left waits for the next. */
function read(input: Buffer, cut: number): string[] {
  const lines: string[] = [];
  let held: Buffer = Buffer.alloc(0);
  let malformed = false;
  for (const chunk of [input.subarray(0, cut), input.subarray(cut)]) {
    if (malformed) break;
    const bytes = Buffer.concat([held, chunk]);
    const decoded = decodeControl(bytes);
    let at = 0;
    for (const { type, fields } of decoded.messages) {
      lines.push(typeLine(type), ...fields.map((f) => (f === '' ? 'field' : `field ${f}`)));
      // Written back, a message is its very bytes: the serving process's encoder agrees with its decoder.
      const again = encodeControl(type, fields);
      if (!again.equals(bytes.subarray(at, at + again.length))) lines.push('(written back as other bytes)');
      at += again.length;
    }
    held = decoded.rest;
    malformed = decoded.malformed;
  }
  if (malformed) lines.push('malformed');
  else if (held.length > 0) lines.push(`rest ${held.length}`);
  return lines;
}

describe('the control vectors shared with the keeper', () => {
  it.each(readVectors('control'))('$name', ({ input, lines }) => {
    const expected = lines
      .filter(({ key }) => key !== 'keeper')
      .map(({ key, rest }) => (rest === '' ? key : `${key} ${rest}`));
    // The first cut read otherwise, whole (jest's diff of every cut would be slow for long vectors).
    const wrong = cuts(input.length).find((cut) => read(input, cut).join('\n') !== expected.join('\n'));
    if (wrong !== undefined) expect({ cut: wrong, read: read(input, wrong) }).toEqual({ cut: wrong, read: expected });
  });
});
