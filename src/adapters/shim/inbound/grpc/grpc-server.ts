import type { Http2Server, ServerHttp2Session } from 'node:http2';
import { TaskService } from '../../../../application/shim/task/task-service';
import { ListenTarget, SocketListener } from '../../os/socket-listener';
import { taskHandlers } from '../task-rpc/task-handlers';
import { serveGrpcCall } from './grpc-call';

const STOP_GRACE_MS = 1000;
/** Calls in flight at once on one connection. */
export const MAX_CONCURRENT_STREAMS = 128;
/** node:http2's maxSessionMemory, in MB: what one connection may hold buffered. */
export const MAX_SESSION_MEMORY_MB = 64;

/**
 * Serves task.v2.Task over gRPC on a unix socket (mode 0600), with node:http2 and the
 * shared handlers: every call of the service is unary, so the server is only what a
 * unary call needs (grpc-call.ts). grpc-js's server did the same work in about twice
 * the time per call (docs/performance.md); clients are unchanged.
 */
export class GrpcTaskServer {
  private readonly sessions = new Set<ServerHttp2Session>();

  private constructor(
    private readonly http2: Http2Server,
    private readonly listener: SocketListener,
  ) {
    http2.on('session', (session: ServerHttp2Session) => {
      this.sessions.add(session);
      session.once('close', () => this.sessions.delete(session));
    });
  }

  get path(): string | undefined {
    return this.listener.path;
  }

  static async listen(target: ListenTarget, service: TaskService): Promise<GrpcTaskServer> {
    return GrpcTaskServer.serve(await SocketListener.listen(target), service);
  }

  /** Serves on a socket that already listens, starting with the connections waiting in it. */
  static serve(listener: SocketListener, service: TaskService): GrpcTaskServer {
    const handlers = taskHandlers(service);
    // Loaded here, not at the top: node:http2 brings http, tls and assert with it, ~15 ms
    // of start-up that a shim serving ttrpc (containerd's) never needs (docs/performance.md).
    const { createServer } = require('node:http2') as typeof import('node:http2');
    // Bounded per connection as containerd's runc shim is by ttrpc (4 MiB a message, grpc-call.ts):
    // at most MAX_CONCURRENT_STREAMS calls at once, announced in SETTINGS (a client opening more
    // gets REFUSED_STREAM), and MAX_SESSION_MEMORY_MB of HTTP/2 buffers, over which that connection
    // alone is ended (ENHANCE_YOUR_CALM). Above the 10 MB default: a 4 MiB request must still pass.
    const http2 = createServer({
      maxSessionMemory: MAX_SESSION_MEMORY_MB,
      settings: { maxConcurrentStreams: MAX_CONCURRENT_STREAMS },
    });
    http2.setTimeout(0);
    http2.on('stream', (stream, headers) => serveGrpcCall(stream, headers, handlers));
    const server = new GrpcTaskServer(http2, listener);
    listener.accept((socket) => http2.emit('connection', socket));
    return server;
  }

  /** Lets calls in flight finish (briefly), then closes every connection and the socket. */
  async stop(): Promise<void> {
    this.listener.close();
    this.http2.close();
    const closed = [...this.sessions].map(
      (session) => new Promise((resolve) => session.close(() => resolve(undefined))),
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(closed), new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS)))]);
    clearTimeout(timer);
    for (const session of this.sessions) session.destroy();
  }
}
