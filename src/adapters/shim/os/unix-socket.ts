import { accessSync, chmodSync, closeSync, constants, lstatSync, rmSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import {
  AlreadyExistsError,
  FailedPreconditionError,
  InternalError,
  InvalidArgumentError,
} from '../../../domain/shared/errors';
import { nativeAddon } from './native-addon';
import { MAX_SOCKET_PATH, unixPath } from './unix-address';
import { fsReason, makeDirs } from '../../shared/helpers/make-dirs';

/** The socket path of an address given as `/path`, `unix:/path` or `unix:///path`. */
export function socketPath(address: string): string {
  const path = unixPath(address);
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
async function prepareSocketPath(path: string): Promise<void> {
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
  // Loaded only here: node:net costs ~4 ms to load, and the first step of `skiff shim
  // serve` binds its socket without it (src/infrastructure/entry/shim-listen.ts).
  const { socketAccepts } = require('./socket-accepts') as typeof import('./socket-accepts');
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

/**
 * After a listener bound `path` under umask 0177: the file must still be a socket
 * (nothing swapped in), and is tightened to 0600 only if the umask was not honoured.
 * chmod follows a link, so it is never called on anything but the socket just bound.
 */
function checkBoundSocket(path: string): void {
  const bound = lstatSync(path);
  if (!bound.isSocket()) {
    throw new FailedPreconditionError(
      `${path} was replaced while the shim bound it; remove it or choose another --address`,
      'SOCKET.NOT_SOCKET',
    );
  }
  if ((bound.mode & 0o777) !== 0o600) chmodSync(path, 0o600);
}

/** Node's own listen backlog (libuv's default for net.Server). */
const BACKLOG = 511;

/** A unix socket bound and listening, not yet served: its descriptor and the file it made. */
export class BoundSocket {
  constructor(
    readonly fd: number,
    readonly path: string,
  ) {}

  /** Closes the descriptor and removes the socket file (a shim that cannot serve after all). */
  close(): void {
    closeSync(this.fd);
    rmSync(this.path, { force: true });
  }
}

/**
 * Binds the socket of `address` (mode 0600 from the start, under umask 0177) with the
 * native addon, so the kernel accepts connections before node:net is even loaded; a
 * net.Server takes the descriptor over later (SocketListener.adopt).
 */
export async function bindSocket(address: string): Promise<BoundSocket> {
  const path = socketPath(address);
  await prepareSocketPath(path);
  const previousUmask = process.umask(0o177);
  let fd: number;
  try {
    fd = nativeAddon().listenUnix(path, BACKLOG);
  } catch (err) {
    throw new InternalError(
      `cannot listen on ${path} (${(err as Error).message}); check the directory's permissions`,
      'SOCKET.LISTEN',
    );
  } finally {
    process.umask(previousUmask);
  }
  const bound = new BoundSocket(fd, path);
  try {
    checkBoundSocket(path);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return bound;
}
