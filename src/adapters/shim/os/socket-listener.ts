import { rmSync } from 'node:fs';
import { createServer, ListenOptions, Server, Socket } from 'node:net';
import { InvalidArgumentError } from '../../../domain/shared/errors';
import { bindSocket, BoundSocket } from './unix-socket';

/**
 * Where to listen: a socket path (`/path`, `unix:/path`, `unix:///path`), or a
 * descriptor that already listens, as containerd's shims receive theirs as fd 3.
 */
export type ListenTarget = { readonly address: string } | { readonly fd: number };

const ignore = (): void => undefined;

function listenOn(server: Server, options: ListenOptions | { fd: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // net.Server.listen takes { fd } as a handle: an already listening descriptor.
    server.listen(options as ListenOptions, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * The shim's listening unix socket, apart from the transport that serves it, so that
 * `skiff shim serve` can accept connections before its serving code is loaded (docs/
 * performance.md). Connections accepted before a transport claims them wait here, their
 * first bytes kept in the socket's buffer; both gRPC and ttrpc take them as they are.
 */
export class SocketListener {
  private pending: Socket[] = [];
  private handler: ((socket: Socket) => void) | undefined;

  private constructor(
    private readonly server: Server,
    /** The socket file this listener made and removes; undefined when it was handed a descriptor. */
    readonly path: string | undefined,
  ) {
    server.on('connection', (socket) => {
      if (this.handler !== undefined) return this.handler(socket);
      // A peer that resets before being served must not crash the shim.
      socket.on('error', ignore);
      this.pending.push(socket);
    });
  }

  static async listen(target: ListenTarget): Promise<SocketListener> {
    if ('fd' in target) {
      const server = createServer();
      await listenOn(server, { fd: target.fd }).catch((err: Error) => {
        throw new InvalidArgumentError(
          `descriptor ${target.fd} is not a listening unix socket (${err.message}); pass the listener the shim was given`,
          'SOCKET.BAD_FD',
        );
      });
      return new SocketListener(server, undefined);
    }
    const bound = await bindSocket(target.address);
    try {
      return await SocketListener.adopt(bound);
    } catch (err) {
      bound.close();
      throw err;
    }
  }

  /** Serves a socket bound already (by entry/shim-listen.ts, before this code was loaded). */
  static async adopt(bound: Pick<BoundSocket, 'fd' | 'path'>): Promise<SocketListener> {
    const server = createServer();
    await listenOn(server, { fd: bound.fd });
    return new SocketListener(server, bound.path);
  }

  /** Hands every connection to `handler`: first those that waited, then each new one. */
  accept(handler: (socket: Socket) => void): void {
    this.handler = handler;
    const waiting = this.pending;
    this.pending = [];
    for (const socket of waiting) {
      socket.off('error', ignore);
      if (!socket.destroyed) handler(socket);
    }
  }

  /** Stops accepting and removes the socket file it made; open connections are the transport's to end. */
  close(): void {
    this.server.close();
    for (const socket of this.pending) socket.destroy();
    this.pending = [];
    if (this.path !== undefined) rmSync(this.path, { force: true });
  }
}
