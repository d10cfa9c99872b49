import { chmodSync, lstatSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { AlreadyExistsError, FailedPreconditionError, InvalidArgumentError } from '../../../../domain/shared/errors';
import { socketAccepts } from '../../helpers/socket-accepts';

/** Unix socket paths are limited to 107 bytes plus NUL (sun_path). */
const MAX_SOCKET_PATH = 107;

/** The socket path of an address given as `/path`, `unix:/path` or `unix:///path`. */
export function socketPath(address: string): string {
  const path = address.replace(/^unix:(\/\/)?/, '');
  if (!isAbsolute(path)) {
    throw new InvalidArgumentError(
      `address ${JSON.stringify(address)} must be an absolute socket path (unix:/run/skiff/shim.sock)`,
      'SOCKET.PATH',
    );
  }
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    throw new InvalidArgumentError(
      `socket path ${path} is longer than ${MAX_SOCKET_PATH} bytes; choose a shorter one`,
      'SOCKET.TOO_LONG',
    );
  }
  return path;
}

/**
 * Makes `path` ready for a new listener: the directory exists (created 0700), and a
 * socket file left by a crashed shim is removed. A socket a live shim still serves,
 * or a file that is not a socket, is never touched.
 */
export async function prepareSocketPath(path: string): Promise<void> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  let stats;
  try {
    stats = lstatSync(path);
  } catch {
    return;
  }
  if (!stats.isSocket()) {
    throw new FailedPreconditionError(
      `${path} exists and is not a socket; remove it or choose another --address`,
      'SOCKET.NOT_SOCKET',
    );
  }
  if (await socketAccepts(path)) {
    throw new AlreadyExistsError(
      `a shim is already serving ${path}; stop it or choose another --address`,
      'SOCKET.IN_USE',
    );
  }
  rmSync(path, { force: true });
}

/**
 * After a listener bound `path` under umask 0177: the file must still be a socket
 * (nothing swapped in), and is tightened to 0600 only if the umask was not honoured.
 * chmod follows a link, so it is never called on anything but the socket just bound.
 */
export function checkBoundSocket(path: string): void {
  const bound = lstatSync(path);
  if (!bound.isSocket()) {
    throw new FailedPreconditionError(
      `${path} was replaced while the shim bound it; remove it or choose another --address`,
      'SOCKET.NOT_SOCKET',
    );
  }
  if ((bound.mode & 0o777) !== 0o600) chmodSync(path, 0o600);
}
