import { decodeControl, encodeControl } from '../../../../../src/adapters/shim/outbound/keeper/control-message';

/** The control connection's framing on the serving process's side (docs/keeper-protocol.md, "The control connection"). */
describe('control messages', () => {
  it('writes length, type and \\0-ended fields, and reads them back however the bytes are cut', () => {
    const bytes = Buffer.concat([encodeControl('E', ['t1', '42', '0', '']), encodeControl('H', [])]);
    expect([...bytes.subarray(0, 5)]).toEqual([0, 0, 0, 10, 0x45]);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const head = decodeControl(bytes.subarray(0, cut));
      const tail = decodeControl(Buffer.concat([head.rest, bytes.subarray(cut)]));
      expect([head.malformed, tail.malformed]).toEqual([false, false]);
      expect([...head.messages, ...tail.messages]).toEqual([
        { type: 'E', fields: ['t1', '42', '0', ''] },
        { type: 'H', fields: [] },
      ]);
      expect(tail.rest.length).toBe(0);
    }
  });

  it('refuses a length of 0, over 1 MiB, or fields whose last is not \\0-ended', () => {
    expect(decodeControl(Buffer.from([0, 0, 0, 0, 0x41])).malformed).toBe(true);
    expect(decodeControl(Buffer.from([0, 0x10, 0, 1])).malformed).toBe(true);
    expect(decodeControl(Buffer.from([0, 0, 0, 3, 0x41, 0x6b, 0x6b])).malformed).toBe(true);
  });

  it('takes the messages before a malformed one, as the keeper does (test/vectors/control/good-then-malformed.vec)', () => {
    const bytes = Buffer.concat([encodeControl('E', ['t1', '42', '0', '1', '2']), Buffer.from([0, 0, 0, 0])]);
    expect(decodeControl(bytes)).toEqual({
      messages: [{ type: 'E', fields: ['t1', '42', '0', '1', '2'] }],
      rest: Buffer.from([0, 0, 0, 0]),
      malformed: true,
    });
  });
});
