import { rmSync } from 'node:fs';
import { createServer, ListenOptions, Server } from 'node:net';
import { InternalError, InvalidArgumentError } from '../../../../domain/shared/errors';
import { checkBoundSocket, prepareSocketPath, socketPath } from '../task-rpc/unix-socket';
import { TtrpcConnection } from './ttrpc-connection';
import { TtrpcServices } from './ttrpc-dispatch';

/** Calls in flight get this long to finish when the server stops. */
const STOP_GRACE_MS = 1000;

/**
 * Where to listen: a socket path (`/path`, `unix:/path`, `unix:///path`), or a
 * descriptor that already listens, as containerd's shims receive theirs as fd 3.
 */
export type TtrpcListenTarget = { readonly address: string } | { readonly fd: number };

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

/** A ttrpc server on a unix socket: any number of connections, each with any number of calls in flight. */
export class TtrpcServer {
  private readonly connections = new Set<TtrpcConnection>();
  /** Connections accepted so far: an idle server tells a new client from none by it. */
  private acceptedCount = 0;

  private constructor(
    private readonly server: Server,
    /** The socket file this server made and removes; undefined when it was handed a descriptor. */
    readonly path: string | undefined,
    services: TtrpcServices,
  ) {
    server.on('connection', (socket) => {
      this.acceptedCount++;
      const connection = new TtrpcConnection(socket, services);
      this.connections.add(connection);
      socket.once('close', () => this.connections.delete(connection));
    });
  }

  get accepted(): number {
    return this.acceptedCount;
  }

  static async listen(target: TtrpcListenTarget, services: TtrpcServices): Promise<TtrpcServer> {
    const server = createServer();
    if ('fd' in target) {
      await listenOn(server, { fd: target.fd }).catch((err: Error) => {
        throw new InvalidArgumentError(
          `descriptor ${target.fd} is not a listening unix socket (${err.message}); pass the listener the shim was given`,
          'TTRPC.BAD_FD',
        );
      });
      return new TtrpcServer(server, undefined, services);
    }
    const path = socketPath(target.address);
    await prepareSocketPath(path);
    // The socket is created with mode 0600 from the start: no moment with a wider mode.
    const previousUmask = process.umask(0o177);
    try {
      await listenOn(server, { path });
    } catch (err) {
      throw new InternalError(
        `cannot listen on ${path} (${(err as Error).message}); check the directory's permissions`,
        'TTRPC.LISTEN',
      );
    } finally {
      process.umask(previousUmask);
    }
    try {
      checkBoundSocket(path);
    } catch (err) {
      server.close();
      throw err;
    }
    return new TtrpcServer(server, path, services);
  }

  /**
   * Stops accepting, ends each connection once its calls are answered (as ttrpc's
   * Server.Shutdown closes idle connections), closes what is left after the grace,
   * and removes the socket file it made.
   */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    this.server.close();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.all([...this.connections].map((c) => c.endWhenIdle())), grace]);
    clearTimeout(timer);
    for (const connection of this.connections) connection.destroy();
    if (this.path !== undefined) rmSync(this.path, { force: true });
  }
}
