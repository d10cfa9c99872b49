import { utf8Bytes } from './encoding';

const UNRESERVED = /^[A-Za-z0-9\-_.~]$/;
const HEX = '0123456789ABCDEF';

/**
 * The percent-encoding of SSO step 6 (RFC 3986 §2.1, §2.3): of the UTF-8 bytes, A-Z a-z
 * 0-9 '-' '_' '.' '~' stay, every other byte becomes '%' and two uppercase hexadecimal
 * digits (so a space is %20, never '+').
 */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of utf8Bytes(text)) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && UNRESERVED.test(char) ? char : `%${HEX[byte >> 4]}${HEX[byte & 0x0f]}`;
  }
  return out;
}

/** `application/x-www-form-urlencoded` body with the same encoding, fields in the given order. */
export function formEncode(fields: ReadonlyArray<readonly [string, string]>): string {
  return fields.map(([key, value]) => `${percentEncode(key)}=${percentEncode(value)}`).join('&');
}
