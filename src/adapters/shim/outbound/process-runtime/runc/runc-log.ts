import { closeSync, openSync, readSync, statSync } from 'node:fs';

/** Longest runc message put in an error (runc wraps errors in long chains). */
const MAX_MESSAGE = 600;
/** How much of the log's tail is read: the newest lines are the ones that matter. */
const TAIL_BYTES = 64 * 1024;

/** Where the log ends now, so that a failing call reads only the lines it wrote. */
export function logOffset(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * The message of the last error runc wrote to its JSON log (`--log-format json`) after
 * `offset`, trimmed to one line; undefined when it wrote none.
 */
export function lastLogError(path: string, offset: number): string | undefined {
  let text = '';
  try {
    const size = statSync(path).size;
    const start = Math.max(offset, size - TAIL_BYTES);
    const buffer = Buffer.alloc(Math.max(0, size - start));
    const fd = openSync(path, 'r');
    try {
      readSync(fd, buffer, 0, buffer.length, start);
    } finally {
      closeSync(fd);
    }
    text = buffer.toString('utf8');
  } catch {
    return undefined;
  }
  let message: string | undefined;
  for (const line of text.split('\n')) {
    try {
      const entry = JSON.parse(line) as { level?: string; msg?: string };
      if ((entry.level === 'error' || entry.level === 'fatal') && typeof entry.msg === 'string') message = entry.msg;
    } catch {
      // a partial first line or a non-JSON line
    }
  }
  return message === undefined ? undefined : trimMessage(message);
}

/** One line, no trailing blanks, bounded length. */
export function trimMessage(text: string): string {
  const line = text.replace(/\s*\n\s*/g, '; ').trim();
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE)}...` : line;
}
