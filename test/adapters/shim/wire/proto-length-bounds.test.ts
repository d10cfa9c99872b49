import { taskCodec } from '../../../../src/adapters/shim/wire/codec/task-codec';

/**
 * A length-delimited field held to the bytes of the message it sits in (proto-length-bounds.ts).
 * Each input below once kept google-protobuf's reader busy for minutes or for good.
 */
const codec = taskCodec('containerd');
const LENGTHS = {
  '2^32 - 1': [0xff, 0xff, 0xff, 0xff, 0x0f],
  '2^35': [0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
  '2^63 - 1': [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f],
};

function decodeUpdate(bytes: number[]): string {
  try {
    codec.Update.decodeRequest(Buffer.from(bytes));
  } catch (err) {
    return (err as Error).message; // task-handlers.ts answers it INVALID_ARGUMENT
  }
  return 'decoded';
}

describe('a length-delimited field that runs past the end of its message', () => {
  it.each(Object.entries(LENGTHS))('an embedded message %s bytes long is refused at once', (_, length) => {
    // UpdateTaskRequest field 2, resources: a google.protobuf.Any.
    expect(decodeUpdate([0x12, ...length, 0x0a, 0x01])).toBe(
      `an embedded message field runs past the end of the message (${length.length + 3} bytes)`,
    );
  });

  it('a field inside an embedded message is held to that message, not to the bytes after it', () => {
    // resources says 4 bytes; its type_url inside says 8, which the bytes after would cover.
    const bytes = [0x0a, 0x02, 0x63, 0x31, 0x12, 0x04, 0x0a, 0x08, ...Buffer.from('aaaaaaaa')];
    expect(decodeUpdate(bytes)).toBe('a string field runs past the end of the message (16 bytes)');
  });

  it('a bytes field past the end is refused, one that fits is read', () => {
    // resources { value (field 2, bytes) }
    expect(decodeUpdate([0x12, 0x03, 0x12, 0x09, 0x01])).toBe(
      'a bytes field runs past the end of the message (5 bytes)',
    );
    expect(decodeUpdate([0x12, 0x03, 0x12, 0x01, 0x01])).toBe('decoded');
  });

  it('requests that fit decode as they were encoded, nested messages and all', () => {
    const update = {
      id: 'c1',
      resources: { typeUrl: 'types.containerd.io/x', value: new Uint8Array([1, 2, 3]) },
      annotations: new Map([['a', 'b']]),
    };
    expect(codec.Update.decodeRequest(codec.Update.encodeRequest(update))).toEqual(update);
  });
});
