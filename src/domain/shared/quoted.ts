/**
 * A piece of untrusted input for a message: in double quotes, escaped as JSON escapes it,
 * and DEL, the C1 controls and the Unicode line separators escaped too (JSON leaves those
 * as they are), so that what a terminal or a log shows is one line and never acts on it.
 */
export function quoted(text: string): string {
  return JSON.stringify(text).replace(
    /[\u007f-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
