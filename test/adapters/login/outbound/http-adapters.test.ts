import { execFileSync } from 'node:child_process';
import { createServer, Server } from 'node:net';
import { join } from 'node:path';
import {
  BoardExchangeUnavailableError,
  BoardTokenRejectedError,
} from '../../../../src/domain/login/boards/board-errors';
import { IdentityError, NetworkError } from '../../../../src/domain/shared/errors';
import { parseJsonLossless } from '../../../../src/adapters/login/outbound/board-tool/lossless-json';
import { PlankaBoardTool } from '../../../../src/adapters/login/outbound/board-tool/planka-board-tool';
import { GiteaGitHost } from '../../../../src/adapters/login/outbound/git-host/gitea-git-host';
import { HttpClient, networkFailure } from '../../../../src/adapters/login/helpers/http-client';
import { HttpStub, TLS_DIR } from '../../../support/http-stub';

const http = new HttpClient();

describe('lossless JSON', () => {
  it('keeps every digit of integers beyond 2^53 as strings', () => {
    expect(
      parseJsonLossless('{"id": 1357924680135792469, "n": 42, "f": 1.5, "e": 1e3, "neg": -9007199254740993}'),
    ).toEqual({
      id: '1357924680135792469',
      n: 42,
      f: 1.5,
      e: 1000,
      neg: '-9007199254740993',
    });
  });

  it('leaves strings alone, escapes included', () => {
    expect(parseJsonLossless('["a\\"1234567890123456789", "\\\\", 9007199254740991]')).toEqual([
      'a"1234567890123456789',
      '\\',
      9007199254740991,
    ]);
  });

  it('still refuses invalid JSON', () => {
    expect(() => parseJsonLossless('{"a": }')).toThrow();
  });
});

describe('the Gitea adapter', () => {
  let stub: HttpStub;
  beforeEach(async () => (stub = await HttpStub.start()));
  afterEach(() => stub.close());

  it('asks /api/v1/user with "Authorization: token <token>" and returns the login', async () => {
    stub.on('GET /api/v1/user', { body: { login: 'alice', id: 1 } });
    await expect(new GiteaGitHost(http).currentUser(stub.url, 'git-1')).resolves.toEqual({ login: 'alice' });
    expect(stub.requests[0].headers.authorization).toBe('token git-1');
  });

  it('no login in the reply: none returned (shown as unknown)', async () => {
    stub.on('GET /api/v1/user', { body: { id: 1 } });
    await expect(new GiteaGitHost(http).currentUser(stub.url, 'git-1')).resolves.toEqual({});
  });

  it.each([401, 403, 500])(
    'HTTP %i: an identity error "invalid token" stating the status, without the token',
    async (status) => {
      stub.on('GET /api/v1/user', { status, body: { message: 'token is invalid' } });
      const err = (await new GiteaGitHost(http).currentUser(stub.url, 'git-secret').catch((e: unknown) => e)) as Error;
      expect(err).toBeInstanceOf(IdentityError);
      expect(err.message).toMatch(
        new RegExp(`invalid token: the git host 127.0.0.1:${stub.port} answered HTTP ${status}`),
      );
      expect(err.message).not.toContain('git-secret');
    },
  );

  it('HTML with 200 (a wrong URL) is a network error, not a verified token', async () => {
    stub.on('GET /api/v1/user', { body: '<!DOCTYPE html><html></html>', contentType: 'text/html' });
    await expect(new GiteaGitHost(http).currentUser(stub.url, 'git-1')).rejects.toBeInstanceOf(NetworkError);
  });
});

describe('the Planka adapter', () => {
  let stub: HttpStub;
  const tool = new PlankaBoardTool(http);
  beforeEach(async () => (stub = await HttpStub.start()));
  afterEach(() => stub.close());

  it('exchanges with POST {"token": ...} and reads "item"', async () => {
    stub.on('POST /api/access-tokens/exchange-using-token', { body: { item: 'board-1' } });
    await expect(tool.exchangeToken(`${stub.url}/api`, 'access-1')).resolves.toBe('board-1');
    expect(JSON.parse(stub.requests[0].body)).toEqual({ token: 'access-1' });
    expect(stub.requests[0].headers['content-type']).toBe('application/json');
  });

  it('404 on the exchange: BoardExchangeUnavailableError; 401: identity error', async () => {
    await expect(tool.exchangeToken(`${stub.url}/api`, 'a')).rejects.toBeInstanceOf(BoardExchangeUnavailableError);
    stub.on('POST /api/access-tokens/exchange-using-token', { status: 401, body: {} });
    await expect(tool.exchangeToken(`${stub.url}/api`, 'a')).rejects.toBeInstanceOf(IdentityError);
  });

  it('lists with the bearer token or the API key, ids exact even when sent as numbers beyond 2^53', async () => {
    const body =
      '{"items":[{"id":1357924680135792468,"name":"Platform"}],' +
      '"included":{"boards":[{"id":1357924680135792469,"name":"Roadmap","projectId":"1357924680135792468"},' +
      '{"id":"42","name":"Small","projectId":1357924680135792468}]}}';
    stub.on('GET /api/projects', { body, contentType: 'application/json' });
    await expect(tool.listProjects(`${stub.url}/api`, { bearer: 'b1' })).resolves.toEqual({
      projects: [{ id: '1357924680135792468', name: 'Platform' }],
      boards: [
        { id: '1357924680135792469', name: 'Roadmap', projectId: '1357924680135792468' },
        { id: '42', name: 'Small', projectId: '1357924680135792468' },
      ],
    });
    expect(stub.requests[0].headers.authorization).toBe('Bearer b1');
    await tool.listProjects(`${stub.url}/api`, { apiKey: 'k1' });
    expect(stub.requests[1].headers['x-api-key']).toBe('k1');
    expect(stub.requests[1].headers.authorization).toBeUndefined();
  });

  it('401 on the listing: BoardTokenRejectedError; 500 and garbage: network errors naming the host', async () => {
    stub.on('GET /api/projects', { status: 401, body: {} });
    await expect(tool.listProjects(`${stub.url}/api`, { bearer: 'b' })).rejects.toBeInstanceOf(BoardTokenRejectedError);
    stub.on('GET /api/projects', { status: 500, body: 'oops' });
    await expect(tool.listProjects(`${stub.url}/api`, { bearer: 'b' })).rejects.toThrow(
      new RegExp(`127.0.0.1:${stub.port}.*HTTP 500`),
    );
    stub.on('GET /api/projects', { body: { items: 'no' } });
    await expect(tool.listProjects(`${stub.url}/api`, { bearer: 'b' })).rejects.toThrow(/unexpected JSON shape/);
  });
});

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
