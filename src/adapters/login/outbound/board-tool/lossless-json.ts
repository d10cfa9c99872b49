/**
 * JSON.parse that keeps every digit of integers beyond 2^53 (snowflake ids): such a
 * literal becomes a string before parsing. Strings, escapes included, pass untouched.
 */
export function parseJsonLossless(text: string): unknown {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      const match = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
      const literal = match?.[0] ?? c;
      const isInteger = match !== null && match[1] === undefined && match[2] === undefined;
      out += isInteger && !Number.isSafeInteger(Number(literal)) ? `"${literal}"` : literal;
      i += literal.length;
    } else {
      out += c;
      i += 1;
    }
  }
  return JSON.parse(out);
}
