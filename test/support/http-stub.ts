import { createServer as createHttp, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AddressInfo } from 'node:net';

export interface StubRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export interface StubReply {
  readonly status?: number;
  /** An object is sent as JSON; a string as it is. */
  readonly body?: unknown;
  readonly contentType?: string;
  /** Never answer (a silent remote). */
  readonly hang?: boolean;
}

export type StubHandler = (request: StubRequest) => StubReply;

/**
 * A small HTTP(S) server on 127.0.0.1 standing in for a remote service: routes by
 * "METHOD /path" (query ignored), records every request.
 */
export class HttpStub {
  readonly requests: StubRequest[] = [];
  private readonly routes = new Map<string, StubHandler>();
  private server!: Server;
  private tls = false;
  private readonly open = new Set<ServerResponse>();

  static async start(options: { tls?: boolean } = {}): Promise<HttpStub> {
    const stub = new HttpStub();
    stub.tls = options.tls === true;
    const handler = (req: IncomingMessage, res: ServerResponse) => stub.handle(req, res);
    stub.server = options.tls
      ? createHttps(
          { key: readFileSync(join(TLS_DIR, 'localhost.key')), cert: readFileSync(join(TLS_DIR, 'localhost.crt')) },
          handler,
        )
      : createHttp(handler);
    await new Promise<void>((resolve) => stub.server.listen(0, '127.0.0.1', resolve));
    return stub;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `${this.tls ? 'https' : 'http'}://127.0.0.1:${this.port}`;
  }

  on(route: string, handler: StubHandler | StubReply): this {
    this.routes.set(route, typeof handler === 'function' ? handler : () => handler);
    return this;
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections?.();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      const request = { method: req.method ?? 'GET', path, headers: req.headers, body };
      this.requests.push(request);
      const handler = this.routes.get(`${request.method} ${path}`);
      const reply = handler ? handler(request) : { status: 404, body: { message: 'not found' } };
      if (reply.hang) {
        this.open.add(res);
        return;
      }
      const text =
        typeof reply.body === 'string' ? reply.body : reply.body === undefined ? '' : JSON.stringify(reply.body);
      res.writeHead(reply.status ?? 200, {
        'Content-Type': reply.contentType ?? (typeof reply.body === 'string' ? 'text/plain' : 'application/json'),
      });
      res.end(text);
    });
  }
}

export const TLS_DIR = join(__dirname, '..', 'fixtures', 'tls');

/** The form fields of a request body. */
export function formFields(body: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(body));
}
