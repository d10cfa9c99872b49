import { readFileSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { TLS_DIR } from '../../support/http-stub';
import { httpRequest } from './oidc';

/**
 * A Kubernetes API server stand-in on 127.0.0.1 over HTTPS: it accepts a request only
 * when its bearer token is one the identity provider vouches for (its userinfo
 * endpoint answers 200 for it), and records every token it was sent. GET /whoami
 * answers the token's subject.
 */
export class KubeApiStandIn {
  readonly tokens: string[] = [];
  private constructor(
    private readonly server: Server,
    private readonly issuer: string,
  ) {}

  static async start(issuer: string): Promise<KubeApiStandIn> {
    const server = createServer({
      key: readFileSync(join(TLS_DIR, 'localhost.key')),
      cert: readFileSync(join(TLS_DIR, 'localhost.crt')),
    });
    const api = new KubeApiStandIn(server, issuer);
    server.on('request', (req, res) => {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (token !== undefined) api.tokens.push(token);
      void api.subjectOf(token).then((subject) => {
        res.setHeader('Content-Type', 'application/json');
        if (subject === undefined) {
          res.statusCode = 401;
          res.end(
            JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401 }),
          );
          return;
        }
        res.end(JSON.stringify({ user: subject, path: req.url }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return api;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  static get caFile(): string {
    return join(TLS_DIR, 'localhost.crt');
  }

  private async subjectOf(token: string | undefined): Promise<string | undefined> {
    if (token === undefined) return undefined;
    const reply = await httpRequest(`${this.issuer}/me`, { headers: { Authorization: `Bearer ${token}` } });
    return reply.status === 200 ? (JSON.parse(reply.body) as { sub: string }).sub : undefined;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
