/** DEL, the C1 controls and the Unicode line separators, which JSON.stringify leaves as they are. */
const UNSAFE_BEYOND_JSON = /[\u007f-\u009f\u2028\u2029]/g;
// eslint-disable-next-line no-control-regex -- control characters are what this escapes
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

function escape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * A piece of untrusted input for a message: in double quotes, escaped as JSON escapes it,
 * and DEL, the C1 controls and the Unicode line separators escaped too (JSON leaves those
 * as they are), so that what a terminal or a log shows is one line and never acts on it.
 */
export function quoted(text: string): string {
  return JSON.stringify(text).replace(UNSAFE_BEYOND_JSON, escape);
}

/**
 * Text that may hold pieces of untrusted input, its control characters escaped, without quotes:
 * the one way anything another party wrote (an identity provider's user code, URL or e-mail, a git
 * host's login, a board tool's names, a library's message, another process's command line) is
 * printed to a terminal. C0 (ESC among them, so no escape sequence survives), DEL, C1 and the
 * Unicode line separators become `\uXXXX`; the rest is left as it is, so printable text reads the same.
 */
export function escapedControls(text: string): string {
  return text.replace(UNSAFE, escape);
}
