import { asciiBytes, base64url, fromBase64url, utf8Bytes, utf8Text } from '../../../../src/domain/login/auth/encoding';

describe('base64url without padding', () => {
  it.each([
    ['', ''],
    ['f', 'Zg'],
    ['fo', 'Zm8'],
    ['foo', 'Zm9v'],
    ['foob', 'Zm9vYg'],
    ['fooba', 'Zm9vYmE'],
    ['foobar', 'Zm9vYmFy'],
  ])('encodes the RFC 4648 vector %p as %p', (text, encoded) => {
    expect(base64url(asciiBytes(text))).toBe(encoded);
  });

  it('uses - and _ instead of + and /', () => {
    expect(base64url(Uint8Array.from([0xfb, 0xff, 0xbf]))).toBe('-_-_');
  });

  it('gives 43 characters for 32 bytes and 22 for 16', () => {
    expect(base64url(new Uint8Array(32).fill(7))).toHaveLength(43);
    expect(base64url(new Uint8Array(16).fill(7))).toHaveLength(22);
  });

  it('agrees with Node on random-looking input, both ways', () => {
    for (let n = 0; n < 40; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n * 11) & 0xff);
      const expected = Buffer.from(bytes).toString('base64url');
      expect(base64url(bytes)).toBe(expected);
      expect(Buffer.from(fromBase64url(expected) as Uint8Array).equals(Buffer.from(bytes))).toBe(true);
    }
  });

  it('decodes padded and standard-alphabet input, refuses other characters', () => {
    expect(utf8Text(fromBase64url('Zm9vYg==') as Uint8Array)).toBe('foob');
    expect(fromBase64url('+/+/')).toEqual(Uint8Array.from([0xfb, 0xff, 0xbf]));
    expect(fromBase64url('ab$c')).toBeUndefined();
    expect(fromBase64url('abcde')).toBeUndefined();
  });
});

describe('UTF-8', () => {
  it('matches Buffer for multi-byte text', () => {
    const text = 'é ü € 𝄞 ascii';
    expect(Buffer.from(utf8Bytes(text)).equals(Buffer.from(text, 'utf8'))).toBe(true);
    expect(utf8Text(utf8Bytes(text))).toBe(text);
  });

  it('refuses malformed sequences', () => {
    expect(utf8Text(Uint8Array.from([0xc3]))).toBeUndefined();
    expect(utf8Text(Uint8Array.from([0xc0, 0x80]))).toBeUndefined();
    expect(utf8Text(Uint8Array.from([0xed, 0xa0, 0x80]))).toBeUndefined();
    expect(utf8Text(Uint8Array.from([0xff]))).toBeUndefined();
  });
});
