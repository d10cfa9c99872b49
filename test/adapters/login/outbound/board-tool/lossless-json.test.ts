import { parseJsonLossless } from '../../../../../src/adapters/login/outbound/board-tool/lossless-json';

describe('lossless JSON', () => {
  it('keeps every digit of integers beyond 2^53 as strings', () => {
    expect(
      parseJsonLossless('{"id": 1357924680135792469, "n": 42, "f": 1.5, "e": 1e3, "neg": -9007199254740993}'),
    ).toEqual({
      id: '1357924680135792469',
      n: 42,
      f: 1.5,
      e: 1000,
      neg: '-9007199254740993',
    });
  });

  it('leaves strings alone, escapes included', () => {
    expect(parseJsonLossless('["a\\"1234567890123456789", "\\\\", 9007199254740991]')).toEqual([
      'a"1234567890123456789',
      '\\',
      9007199254740991,
    ]);
  });

  it('still refuses invalid JSON', () => {
    expect(() => parseJsonLossless('{"a": }')).toThrow();
  });
});
