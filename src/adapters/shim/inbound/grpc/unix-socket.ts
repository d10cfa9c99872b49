import { accessSync, constants, lstatSync, rmSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { AlreadyExistsError, FailedPreconditionError, InvalidArgumentError } from '../../../../domain/shared/errors';
import { fsReason, makeDirs } from '../../../shared/helpers/make-dirs';
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
  usableDirectory(dirname(path), path);
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

/** The socket's directory exists (created 0700) and a socket can be made in it; else one line saying why. */
function usableDirectory(dir: string, path: string): void {
  try {
    makeDirs(dir, 0o700);
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (err) {
    throw new FailedPreconditionError(
      `cannot make the socket ${path}: its directory ${dir}: ${fsReason(err)}; choose another --address`,
      'SOCKET.DIRECTORY',
    );
  }
}
