import { ConfigurationError } from '../../../domain/shared/errors';
import { describeFsError } from './atomic-file';
import { readRegularFile, UnsafeFileError } from '../../shared/helpers/no-follow-file';

/** A secret or a token is a line; anything larger than this is not one. */
export const MAX_SECRET_BYTES = 64 * 1024;

/**
 * A secret from a file of the user's (a robot's client secret, a CI job's subject token):
 * a link such as a mounted Kubernetes secret is followed, unlike skiff's own files; a FIFO
 * or device there is refused without waiting on it; surrounding blanks and the final newline
 * trimmed. Missing, unreadable, not a regular file or empty: a ConfigurationError
 * `<what> <path> <problem>` with `code`, never the content.
 */
export function readSecretFile(path: string, what: string, code: string): string {
  const unreadable = (detail: string) => new ConfigurationError(`${what} ${path} ${detail}`, code);
  let text: string | undefined;
  try {
    text = readRegularFile(path, { limit: MAX_SECRET_BYTES, followLink: true });
  } catch (err) {
    const errno = (err as NodeJS.ErrnoException).code;
    if (err instanceof UnsafeFileError || errno === 'EISDIR') throw unreadable('is not a regular file');
    // Without a code: the size limit's own message.
    throw unreadable(errno === undefined ? (err as Error).message : `cannot be read: ${describeFsError(err)}`);
  }
  if (text === undefined) throw unreadable('does not exist');
  const secret = text.trim();
  if (secret === '') throw unreadable('is empty');
  return secret;
}
