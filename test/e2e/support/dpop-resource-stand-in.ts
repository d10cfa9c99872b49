import { createHash } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { calculateJwkThumbprint, compactVerify, importJWK, type JWK } from 'jose';
import { httpRequest } from './oidc';

/**
 * A resource server stand-in on 127.0.0.1 that takes DPoP-bound tokens only (RFC 9449 §7):
 * `Authorization: DPoP <token>` and a `DPoP` proof whose signature verifies with the key in
 * its header, `typ` dpop+jwt, `alg` ES256, `htm` the request's method, `htu` its URL without
 * the query, `iat` within 60 s, a `jti` never seen before, `ath` the token's hash; and the
 * token active at the provider (introspection as skiff-robot) and bound to that key (`cnf.jkt`
 * is the key's RFC 7638 thumbprint). Each refusal is a 401 whose body names the rule broken.
 */
export class DpopResourceStandIn {
  private readonly seen = new Set<string>();
  readonly refusals: string[] = [];

  private constructor(
    private readonly server: Server,
    private readonly issuer: string,
  ) {}

  static async start(issuer: string): Promise<DpopResourceStandIn> {
    const server = createServer();
    const standIn = new DpopResourceStandIn(server, issuer);
    server.on('request', (req, res) => {
      void standIn.judge(req).then((refusal) => {
        res.setHeader('Content-Type', 'application/json');
        if (refusal !== undefined) standIn.refusals.push(refusal);
        res.statusCode = refusal === undefined ? 200 : 401;
        res.end(JSON.stringify(refusal === undefined ? { ok: true, path: req.url } : { error: refusal }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return standIn;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async judge(req: IncomingMessage): Promise<string | undefined> {
    const token = /^DPoP (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined) return 'no DPoP authorization';
    const proof = req.headers.dpop;
    if (typeof proof !== 'string') return 'no DPoP proof';
    let header: { typ?: string; alg?: string; jwk?: JWK };
    let claims: Record<string, unknown>;
    try {
      header = JSON.parse(Buffer.from(proof.split('.')[0], 'base64url').toString('utf8')) as typeof header;
      if (header.typ !== 'dpop+jwt' || header.alg !== 'ES256' || header.jwk === undefined) return 'bad header';
      const { payload } = await compactVerify(proof, await importJWK(header.jwk, 'ES256'));
      claims = JSON.parse(Buffer.from(payload).toString('utf8')) as Record<string, unknown>;
    } catch {
      return 'bad signature';
    }
    if (claims.htm !== req.method) return 'htm';
    if (claims.htu !== `${this.url}${(req.url ?? '').split('?')[0]}`) return 'htu';
    if (typeof claims.iat !== 'number' || Math.abs(Date.now() / 1000 - claims.iat) > 60) return 'iat';
    if (typeof claims.jti !== 'string' || this.seen.has(claims.jti)) return 'jti replay';
    this.seen.add(claims.jti);
    if (claims.ath !== createHash('sha256').update(token).digest('base64url')) return 'ath';
    const introspection = await httpRequest(`${this.issuer}/token/introspection`, {
      method: 'POST',
      body: new URLSearchParams({ token }).toString(),
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${Buffer.from('skiff-robot:robot-secret').toString('base64')}`,
      },
    });
    const info = JSON.parse(introspection.body) as { active?: boolean; cnf?: { jkt?: string } };
    if (info.active !== true) return 'token not active';
    if (info.cnf?.jkt !== (await calculateJwkThumbprint(header.jwk))) return 'not bound to this key';
    return undefined;
  }
}
