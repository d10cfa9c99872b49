import { ListenTarget, SocketListener } from '../../os/socket-listener';
import { Socket } from 'node:net';
import { admitConnection } from './connection-admission';
import { KeeperPreamble } from './keeper-preamble';
import { TtrpcConnection } from './ttrpc-connection';
import { TtrpcServices } from './ttrpc-dispatch';

export interface TtrpcServerOptions {
  /** Hears the preamble of each pod keeper's relay connection, and its socket (docs/keeper-protocol.md). */
  readonly onKeeper?: (preamble: KeeperPreamble, socket: Socket) => void;
  /** Takes each pod keeper's control connection; without it they are closed (docs/keeper-protocol.md). */
  readonly onControl?: (socket: Socket, preamble: KeeperPreamble, first: Buffer) => void;
  /** Acts on a forget connection's preamble; the connection closes once it settles (docs/keeper-protocol.md, `delete`). */
  readonly onForget?: (preamble: KeeperPreamble) => Promise<void>;
}

/** Calls in flight get this long to finish when the server stops. */
const STOP_GRACE_MS = 1000;

/** A ttrpc server on a unix socket: any number of connections, each with any number of calls in flight. */
export class TtrpcServer {
  private readonly connections = new Set<TtrpcConnection>();
  /** Accepted, their first bytes not read yet. */
  private readonly admitting = new Set<Socket>();
  /** Connections accepted so far: an idle server tells a new client from none by it. */
  private acceptedCount = 0;
  /** Set once a hand-over began: how a connection is told to take no more requests. */
  private stopReading: ((socket: Socket) => void) | undefined;

  private constructor(
    private readonly listener: SocketListener,
    services: TtrpcServices,
    options: TtrpcServerOptions,
  ) {
    listener.accept((socket) => {
      this.acceptedCount++;
      this.admitting.add(socket);
      socket.once('close', () => this.admitting.delete(socket));
      admitConnection(
        socket,
        (first) => {
          this.admitting.delete(socket);
          const connection = new TtrpcConnection(socket, services, first);
          this.connections.add(connection);
          if (this.stopReading !== undefined) void connection.handOver(this.stopReading);
          socket.once('close', () => this.connections.delete(connection));
        },
        options.onKeeper,
        options.onControl &&
          ((socket, preamble, first) => {
            this.admitting.delete(socket);
            options.onControl?.(socket, preamble, first);
          }),
        options.onForget,
      );
    });
  }

  get accepted(): number {
    return this.acceptedCount;
  }

  /** The socket file this server made and removes; undefined when it was handed a descriptor. */
  get path(): string | undefined {
    return this.listener.path;
  }

  static async listen(
    target: ListenTarget,
    services: TtrpcServices,
    options: TtrpcServerOptions = {},
  ): Promise<TtrpcServer> {
    return TtrpcServer.serve(await SocketListener.listen(target), services, options);
  }

  /** Serves on a socket that already listens, starting with the connections waiting in it. */
  static serve(listener: SocketListener, services: TtrpcServices, options: TtrpcServerOptions = {}): TtrpcServer {
    return new TtrpcServer(listener, services, options);
  }

  /**
   * A hand-over to a new serving process (docs/upgrade.md): stops accepting (the caller keeps a
   * copy of the listener for the next process), takes no more requests on any connection
   * (`stopReading`: shutdown of its reading side), serves what was sent before, and resolves
   * once every connection closed, each as soon as its calls that change something are answered.
   * After `graceMs` what is left is closed; resolves with how many connections that cut.
   */
  async handOver(stopReading: (socket: Socket) => void, graceMs: number): Promise<number> {
    this.stopReading = stopReading;
    this.listener.close();
    for (const socket of this.admitting) {
      try {
        stopReading(socket);
      } catch {
        socket.destroy();
      }
    }
    const closing = [...this.connections].map((c) => c.handOver(stopReading));
    const admitted = [...this.admitting].map((s) => new Promise((resolve) => s.once('close', resolve)));
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.all([...closing, ...admitted]), grace]);
    // Connections admitted meanwhile were handed over on arrival: wait for them too.
    await Promise.race([Promise.all([...this.connections].map((c) => c.closed)), grace]);
    clearTimeout(timer);
    const cut = this.connections.size + this.admitting.size;
    for (const connection of this.connections) connection.destroy();
    for (const socket of this.admitting) socket.destroy();
    return cut;
  }

  /**
   * Stops accepting, ends each connection once its calls are answered (as ttrpc's
   * Server.Shutdown closes idle connections), closes what is left after the grace,
   * and removes the socket file it made.
   */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    this.listener.close();
    for (const socket of this.admitting) socket.destroy();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.all([...this.connections].map((c) => c.endWhenIdle())), grace]);
    clearTimeout(timer);
    for (const connection of this.connections) connection.destroy();
  }
}
