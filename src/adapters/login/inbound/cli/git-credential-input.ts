import { fstatSync, readSync } from 'node:fs';

/** git's request is a few short lines. */
export const MAX_REQUEST_BYTES = 64 * 1024;

/**
 * What git wrote on the helper's standard input (git-credential(1): a few `key=value`
 * lines, then git closes the pipe), at most 64 KiB; '' on a terminal. Read with plain
 * read(2) calls on descriptor 0: process.stdin would first load Node's stream and socket
 * modules, a good part of the start of `auth git-credential` (its fast path, and the oclif
 * command read the same way, so the two cannot differ). A descriptor that another holder
 * of the pipe made non-blocking (EAGAIN) is read to its end through process.stdin.
 */
export async function readGitCredentialRequest(): Promise<string> {
  // A terminal (nobody is piping a request) or /dev/null: nothing to read.
  if (fstatSync(0).isCharacterDevice()) return '';
  const buffer = Buffer.allocUnsafe(MAX_REQUEST_BYTES);
  let length = 0;
  while (length < MAX_REQUEST_BYTES) {
    let read: number;
    try {
      read = readSync(0, buffer, length, MAX_REQUEST_BYTES - length, null);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') return decode(Buffer.concat([buffer.subarray(0, length), await restOfStdin(length)]));
      throw err;
    }
    if (read === 0) break;
    length += read;
  }
  return decode(buffer.subarray(0, length));
}

async function restOfStdin(already: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = already;
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    length += (chunk as Buffer).length;
    if (length >= MAX_REQUEST_BYTES) break;
  }
  return Buffer.concat(chunks);
}

function decode(bytes: Buffer): string {
  return bytes.subarray(0, MAX_REQUEST_BYTES).toString('utf8');
}
