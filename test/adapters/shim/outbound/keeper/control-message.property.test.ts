import fc from 'fast-check';
import { decodeControl, encodeControl } from '../../../../../src/adapters/shim/outbound/keeper/control-message';
import { PROPERTY_BUDGET } from '../../../../support/property';

/** The control connection's decoder on generated messages and garbage (the keeper's bytes). */
const field = fc.string({ maxLength: 20 }).map((s) => s.replace(/\0/g, ''));
const message = fc.record({
  type: fc.constantFrom('H', 'E', 'l', 'r', 's'),
  fields: fc.array(field, { maxLength: 6 }),
});

describe('control messages on generated input', () => {
  it('reads back what was written, whole messages in order, the rest left for the next read', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 6 }), fc.nat(), (sent, at) => {
        const bytes = Buffer.concat(sent.map((m) => encodeControl(m.type, m.fields)));
        const cut = at % (bytes.length + 1);
        const head = decodeControl(bytes.subarray(0, cut));
        const tail = decodeControl(Buffer.concat([head.rest, bytes.subarray(cut)]));
        expect([head.malformed, tail.malformed, tail.rest.length]).toEqual([false, false, 0]);
        expect([...head.messages, ...tail.messages]).toEqual(sent);
      }),
      PROPERTY_BUDGET,
    );
  });

  it('never throws on garbage; what it leaves is a part of a message, or it says malformed', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 256 }), (garbage) => {
        const decoded = decodeControl(Buffer.from(garbage));
        if (!decoded.malformed && decoded.rest.length >= 4) {
          const n = decoded.rest.readUInt32BE(0);
          expect(decoded.rest.length - 4).toBeLessThan(n);
        }
      }),
      PROPERTY_BUDGET,
    );
  });
});
