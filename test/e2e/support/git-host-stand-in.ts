import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { TLS_DIR } from '../../support/http-stub';

export interface GitHostRequest {
  readonly method: string;
  readonly url: string;
  readonly authorization?: string;
  /** The user name and password of HTTP basic authentication, when sent. */
  readonly basic?: { user: string; password: string };
}

/**
 * A git host stand-in on 127.0.0.1 over HTTPS: Gitea's /api/v1/user for `auth git`,
 * and the smart HTTP protocol through the real `git http-backend` (CGI) for the
 * repositories under `root`, each request demanding HTTP basic authentication whose
 * password is `token` (401 with a Basic challenge otherwise). Records every request.
 */
export class GitHostStandIn {
  readonly requests: GitHostRequest[] = [];
  private constructor(
    private readonly server: Server,
    private readonly root: string,
    private readonly token: string,
  ) {}

  static async start(root: string, token: string): Promise<GitHostStandIn> {
    const server = createServer({
      key: readFileSync(join(TLS_DIR, 'localhost.key')),
      cert: readFileSync(join(TLS_DIR, 'localhost.crt')),
    });
    const host = new GitHostStandIn(server, root, token);
    server.on('request', (req, res) => host.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return host;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const authorization = req.headers.authorization;
    const decoded = /^Basic (.+)$/.exec(authorization ?? '')?.[1];
    const pair = decoded === undefined ? undefined : Buffer.from(decoded, 'base64').toString('utf8');
    const basic =
      pair === undefined
        ? undefined
        : { user: pair.slice(0, pair.indexOf(':')), password: pair.slice(pair.indexOf(':') + 1) };
    this.requests.push({ method: req.method ?? '', url: req.url ?? '', authorization, basic });
    const url = new URL(req.url ?? '/', this.url);
    if (url.pathname === '/api/v1/user') {
      const ok = authorization === `token ${this.token}`;
      res.writeHead(ok ? 200 : 401, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(ok ? { id: 7, login: 'alice' } : { message: 'token is required' }));
      return;
    }
    if (basic?.password !== this.token) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"', 'Content-Type': 'text/plain' });
      res.end('authentication required\n');
      return;
    }
    this.backend(req, res, url, basic.user);
  }

  /** One CGI run of `git http-backend`: the request body on its stdin, its headers and body back. */
  private backend(req: IncomingMessage, res: ServerResponse, url: URL, user: string): void {
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: this.root,
        GIT_HTTP_EXPORT_ALL: '1',
        REMOTE_USER: user,
        REQUEST_METHOD: req.method,
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let sent = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (sent) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const [name, value] = [line.slice(0, colon), line.slice(colon + 1).trim()];
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      res.write(head.subarray(end + 4));
      sent = true;
    });
    cgi.on('close', () => {
      if (!sent) res.writeHead(500);
      res.end();
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
