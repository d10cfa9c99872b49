import { createServer, Server, Socket } from 'node:net';
import { callbackPage } from './callback-page';
import { CALLBACK_READ_LIMIT, classifyRequest } from '../../../../domain/login/auth/callback-request';
import { ConfigurationError } from '../../../../domain/shared/errors';
import {
  CallbackListener,
  CallbackOutcome,
  CallbackServer,
} from '../../../../application/login/ports/callback-listener.port';

/** SSO step 5: ports 9876 to 9880 in order, then an ephemeral one. */
export const PREFERRED_PORTS = [9876, 9877, 9878, 9879, 9880] as const;
export const LOOPBACK_HOST = '127.0.0.1';

export interface ListenerOptions {
  /** A connection that sends no complete request line within this long is answered 404. */
  readonly idleMs: number;
  readonly preferredPorts: readonly number[];
}

const DEFAULTS: ListenerOptions = { idleMs: 10_000, preferredPorts: PREFERRED_PORTS };

const REASONS: Record<number, string> = {
  200: 'OK',
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
};

function response(status: number, html = ''): string {
  const body = Buffer.from(html, 'utf8');
  return (
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\n` +
    (html ? 'Content-Type: text/html\r\n' : '') +
    `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${html}`
  );
}

function bind(server: Server, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (err.code === 'EADDRINUSE' || err.code === 'EACCES') resolve(false);
      else reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve(true);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ host: LOOPBACK_HOST, port, exclusive: true });
  });
}

/**
 * The loopback callback listener: 127.0.0.1 only. Each connection gets at most
 * 4096 bytes read, up to the end of its request line. The first `GET /callback`
 * request is handed over to be judged; any other request (no request line, another
 * path or method, a connection silent for `idleMs`, a second callback) is answered
 * with an error status and closed, and the wait goes on.
 */
export class LoopbackCallbackListener implements CallbackListener {
  constructor(private readonly options: ListenerOptions = DEFAULTS) {}

  async listen(port?: number): Promise<CallbackServer> {
    const server = createServer();
    server.maxConnections = 64;
    const candidates = port !== undefined ? [port] : [...this.options.preferredPorts, 0];
    for (const candidate of candidates) {
      if (await bind(server, candidate)) return new LoopbackServer(server, this.options.idleMs);
    }
    throw new ConfigurationError(
      `cannot listen on ${LOOPBACK_HOST}:${port ?? 'any port'}: the port is in use or not allowed; choose another --port`,
      'AUTH.CALLBACK_PORT',
    );
  }
}

class LoopbackServer implements CallbackServer {
  readonly port: number;
  private callback: Socket | undefined;
  private target: string | undefined;
  private waiters: Array<(target: string) => void> = [];
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly server: Server,
    private readonly idleMs: number,
  ) {
    const address = server.address();
    this.port = typeof address === 'object' && address !== null ? address.port : 0;
    server.on('connection', (socket) => this.accept(socket));
  }

  nextCallback(): Promise<string> {
    if (this.target !== undefined) return Promise.resolve(this.target);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async reply(outcome: CallbackOutcome): Promise<void> {
    const socket = this.callback;
    this.callback = undefined;
    if (socket === undefined || socket.destroyed) return;
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      const page = callbackPage(outcome);
      socket.end(response(page.status, page.html), () => resolve());
    });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) if (socket !== this.callback) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.callback?.destroy();
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let head = Buffer.alloc(0);
    const decide = () => {
      socket.removeListener('data', onData);
      socket.setTimeout(0);
      socket.pause();
      const verdict = classifyRequest(head.toString('latin1'));
      if (verdict.kind === 'callback' && this.target === undefined) {
        this.claim(socket, verdict.target);
      } else {
        socket.end(response(verdict.kind === 'callback' ? 409 : verdict.status));
      }
    };
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]).subarray(0, CALLBACK_READ_LIMIT);
      if (head.includes(0x0a) || head.length >= CALLBACK_READ_LIMIT) decide();
    };
    socket.on('data', onData);
    socket.setTimeout(this.idleMs, () => {
      if (head.length === 0 || !head.includes(0x0a)) {
        socket.removeListener('data', onData);
        socket.end(response(404));
      }
    });
  }

  private claim(socket: Socket, target: string): void {
    this.target = target;
    this.callback = socket;
    for (const resolve of this.waiters.splice(0)) resolve(target);
  }
}
