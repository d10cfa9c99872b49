import { execFileSync } from 'node:child_process';
import { createServer, Server } from 'node:net';
import { join } from 'node:path';
import { percentEncode } from '../../../../src/domain/login/auth/percent-encoding';
import { NetworkError } from '../../../../src/domain/shared/errors';
import { HttpClient, networkFailure, redact } from '../../../../src/adapters/login/helpers/http-client';
import { HttpStub, TLS_DIR } from '../../../support/http-stub';

const http = new HttpClient();

describe('the HTTP client: remotes that cannot be reached', () => {
  it('a refused connection: network error naming the host', async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise((resolve) => server.close(resolve));
    const err = await http.send({ method: 'GET', url: `http://127.0.0.1:${port}/x` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toBe(
      `cannot connect to 127.0.0.1:${port}: connection refused; check the domain and that the service is up`,
    );
  });

  it('an untrusted TLS certificate: network error naming the host and NODE_EXTRA_CA_CERTS', async () => {
    const stub = await HttpStub.start({ tls: true });
    try {
      const err = await http.send({ method: 'GET', url: `${stub.url}/x` }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as Error).message).toMatch(
        new RegExp(`TLS certificate of 127.0.0.1:${stub.port} is not trusted.*NODE_EXTRA_CA_CERTS`),
      );
    } finally {
      await stub.close();
    }
  });

  it('the same certificate is trusted with NODE_EXTRA_CA_CERTS', async () => {
    const stub = await HttpStub.start({ tls: true });
    stub.on('GET /x', { body: { ok: true } });
    try {
      const client = join(__dirname, '../../../../dist/adapters/login/helpers/http-client.js');
      const script = `new (require(${JSON.stringify(client)}).HttpClient)().send({ method: 'GET', url: '${stub.url}/x' }).then((r) => process.stdout.write(r.status + ' ' + r.body), (e) => process.stdout.write(e.message))`;
      const out = await new Promise<string>((resolve, reject) =>
        require('node:child_process').execFile(
          process.execPath,
          ['-e', script],
          { env: { ...process.env, NODE_EXTRA_CA_CERTS: join(TLS_DIR, 'localhost.crt') } },
          (err: Error | null, stdout: string) => (err ? reject(err) : resolve(stdout)),
        ),
      );
      expect(out).toBe('200 {"ok":true}');
    } finally {
      await stub.close();
    }
  });

  it('HTTPS goes through the proxy from the environment (CONNECT), loopback never does', async () => {
    const seen: string[] = [];
    const proxy = createServer((socket) => {
      socket.once('data', (d) => {
        seen.push(d.toString('latin1').split('\r\n')[0]);
        socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    const client = join(__dirname, '../../../../dist/adapters/login/helpers/http-client.js');
    const run = (url: string) =>
      new Promise<string>((resolve) =>
        require('node:child_process').execFile(
          process.execPath,
          [
            '-e',
            `new (require(${JSON.stringify(client)}).HttpClient)().send({ method: 'GET', url: '${url}', timeoutMs: 3000 }).then((r) => process.stdout.write('reply ' + r.status), (e) => process.stdout.write(e.message))`,
          ],
          { env: { ...process.env, HTTPS_PROXY: proxyUrl, https_proxy: proxyUrl, NO_PROXY: '', no_proxy: '' } },
          (_err: Error | null, stdout: string) => resolve(stdout),
        ),
      );
    try {
      const out = await run('https://auth.example.invalid/.well-known/openid-configuration');
      expect(seen).toEqual(['CONNECT auth.example.invalid:443 HTTP/1.1']);
      // https-proxy-agent hands the proxy's refusal on as the reply.
      expect(out).toBe('reply 403');
      await run('https://127.0.0.1:1/x');
      expect(seen).toHaveLength(1);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('messages come from the error code only: nothing of the request leaks', () => {
    const axiosLike = Object.assign(new Error('Request failed: Authorization: Bearer secret-token'), {
      code: 'ERR_SOMETHING',
      config: { headers: { Authorization: 'Bearer secret-token' } },
    });
    const err = networkFailure(axiosLike, 'https://auth.example.com/token', 15000);
    expect(err.message).toBe(
      'the request to auth.example.com failed (ERR_SOMETHING): check your network or proxy settings',
    );
  });
});

describe('the build', () => {
  it('has the compiled client the subprocess tests load', () => {
    expect(() =>
      execFileSync(process.execPath, [
        '-e',
        `require(${JSON.stringify(join(__dirname, '../../../../dist/adapters/login/helpers/http-client.js'))})`,
      ]),
    ).not.toThrow();
  });
});

describe('redact: a secret we sent, in every form a remote can echo it', () => {
  const kinds: Array<[string, string]> = [
    ['access token', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJib2IifQ.c2lnbmF0dXJl-_x'],
    ['refresh token', 'RT+SECRET/with=chars'],
    ['id token', 'eyJ0eXAiOiJKV1QifQ.eyJlbWFpbCI6ImJAZXhhbXBsZS5jb20ifQ.sig'],
    ['device code', 'GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS'],
    ['client secret', 's3cr\u00e9t "quoted" \\ back/slash ~!*()\''],
    ['git token', '0123456789abcdef0123456789abcdef01234567'],
  ];
  // [form, encode, characters at the start that are not the secret's (a Basic credential's client id)]
  const forms: Array<[string, (s: string) => string, number?]> = [
    ['raw', (s) => s],
    ['RFC 3986 (what skiff sends)', (s) => percentEncode(s)],
    ['encodeURIComponent', (s) => encodeURIComponent(s)],
    ['percent-encoded, lower-case hex', (s) => encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())],
    ['form-encoded (+ for space)', (s) => new URLSearchParams({ t: s }).toString().slice(2)],
    ['JSON-escaped', (s) => JSON.stringify(s).slice(1, -1)],
    ['JSON-escaped with \\/', (s) => JSON.stringify(s).slice(1, -1).replace(/\//g, '\\/')],
    [
      'JSON-escaped, ASCII only',
      (s) =>
        JSON.stringify(s)
          .slice(1, -1)
          .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    ],
    ['base64', (s) => Buffer.from(s).toString('base64')],
    ['base64url', (s) => Buffer.from(s).toString('base64url')],
    ['base64 inside Basic credentials', (s) => Buffer.from(`skiff-cli:${s}`).toString('base64'), 13],
    [
      'base64 of the form-encoded secret inside Basic credentials (RFC 6749 §2.3.1, what skiff sends)',
      (s) => Buffer.from(`skiff-cli:${percentEncode(s)}`).toString('base64'),
      13,
    ],
    ['base64url after one byte', (s) => Buffer.from(`x${s}`).toString('base64url')],
  ];
  for (const [kind, secret] of kinds) {
    it.each(forms)(`${kind}: %s`, (_, encode, prefix = 0) => {
      const echoed = encode(secret);
      const out = redact(`<<${echoed}>>`, [secret]);
      expect(out).toContain('[redacted]');
      // What is left of the encoded form is at most a few edge characters (base64 alignment).
      const longest = longestCommonRun(out, echoed.slice(prefix));
      expect(longest).toBeLessThanOrEqual(3);
    });
  }

  it('leaves text alone that holds no secret, and ignores secrets under 4 characters', () => {
    expect(redact('nothing here', ['RT+SECRET/with=chars'])).toBe('nothing here');
    expect(redact('abc abc', ['abc'])).toBe('abc abc');
  });
});

/** The length of the longest run of characters both strings hold. */
function longestCommonRun(a: string, b: string): number {
  let best = 0;
  for (let i = 0; i < b.length; i++) {
    for (let j = i + best + 1; j <= b.length; j++) {
      if (!a.includes(b.slice(i, j))) break;
      best = j - i;
    }
  }
  return best;
}
