import { connect, createServer, Server, Socket } from 'node:net';
import { callbackPage } from '../../../../../src/adapters/login/outbound/callback-listener/callback-page';
import {
  LOOPBACK_HOST,
  LoopbackCallbackListener,
} from '../../../../../src/adapters/login/outbound/callback-listener/loopback-callback-listener';
import { CallbackServer } from '../../../../../src/application/login/ports/callback-listener.port';

/** Sends raw bytes, returns everything the listener answered before closing. */
function exchange(port: number, bytes: string | Buffer, options: { keepOpen?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (answer += d));
    socket.on('close', () => resolve(answer));
    socket.on('error', (e: NodeJS.ErrnoException) =>
      e.code === 'ECONNRESET' || e.code === 'EPIPE' ? resolve(answer) : reject(e),
    );
    socket.write(bytes);
    if (!options.keepOpen) socket.end();
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the loopback callback listener', () => {
  let server: CallbackServer | undefined;
  const blockers: Server[] = [];
  afterEach(async () => {
    await server?.close();
    server = undefined;
    for (const b of blockers.splice(0)) await new Promise((r) => b.close(r));
  });

  const listen = (port?: number, options = { idleMs: 300, preferredPorts: [] as number[] }) =>
    new LoopbackCallbackListener(options).listen(port).then((s) => (server = s));

  it('listens on 127.0.0.1 only', async () => {
    const s = await listen();
    expect(LOOPBACK_HOST).toBe('127.0.0.1');
    const other = await new Promise<string>((resolve) => {
      const socket = connect({ port: s.port, host: '::1' });
      socket.on('connect', () => resolve('connected'));
      socket.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    expect(other).not.toBe('connected');
  });

  it('takes the preferred ports in order, then an ephemeral one', async () => {
    const [a, b] = [await freePort(), await freePort()];
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(a, '127.0.0.1', resolve));
    blockers.push(blocker);
    const s = await listen(undefined, { idleMs: 300, preferredPorts: [a, b] });
    expect(s.port).toBe(b);
    await s.close();
    const blocker2 = createServer();
    await new Promise<void>((resolve) => blocker2.listen(b, '127.0.0.1', resolve));
    blockers.push(blocker2);
    const s2 = await listen(undefined, { idleMs: 300, preferredPorts: [a, b] });
    expect([a, b]).not.toContain(s2.port);
    expect(s2.port).toBeGreaterThan(0);
  });

  it('uses the ports 9876-9880 by default', () => {
    expect(
      require('../../../../../src/adapters/login/outbound/callback-listener/loopback-callback-listener')
        .PREFERRED_PORTS,
    ).toEqual([9876, 9877, 9878, 9879, 9880]);
  });

  it('a pinned port that is taken is a clear error', async () => {
    const port = await freePort();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    blockers.push(blocker);
    await expect(listen(port)).rejects.toThrow(new RegExp(`127.0.0.1:${port}.*--port`));
  });

  it('hands over the first GET /callback and answers it with the page: 200, text/html, Content-Length, Connection: close', async () => {
    const s = await listen();
    const answer = exchange(s.port, 'GET /callback?code=a%2Fb&state=xyz HTTP/1.1\r\nHost: localhost\r\n\r\n', {
      keepOpen: true,
    });
    await expect(s.nextCallback()).resolves.toBe('/callback?code=a%2Fb&state=xyz');
    await s.reply({ kind: 'success' });
    const page = callbackPage({ kind: 'success' });
    const text = await answer;
    const [head, body] = text.split('\r\n\r\n');
    expect(head.split('\r\n')).toEqual([
      'HTTP/1.1 200 OK',
      'Content-Type: text/html',
      `Content-Length: ${Buffer.byteLength(page.html)}`,
      'Connection: close',
    ]);
    expect(body).toBe(page.html);
  });

  it('answers other paths 404, other methods 405, no request line 400, and keeps waiting', async () => {
    const s = await listen();
    const next = s.nextCallback();
    expect(await exchange(s.port, 'GET /favicon.ico HTTP/1.1\r\n\r\n')).toMatch(/^HTTP\/1.1 404 /);
    expect(await exchange(s.port, 'POST /callback?code=1&state=2 HTTP/1.1\r\n\r\n')).toMatch(/^HTTP\/1.1 405 /);
    expect(await exchange(s.port, '\r\n\r\n')).toMatch(/^HTTP\/1.1 400 /);
    expect(await exchange(s.port, 'garbage\n')).toMatch(/^HTTP\/1.1 400 /);
    const answer = exchange(s.port, 'GET /callback?code=c&state=s HTTP/1.1\r\n\r\n', { keepOpen: true });
    await expect(next).resolves.toBe('/callback?code=c&state=s');
    await s.reply({ kind: 'success' });
    expect(await answer).toMatch(/^HTTP\/1.1 200 /);
  });

  it('a connection that sends nothing is answered 404 after the idle time and does not end the wait', async () => {
    const s = await listen();
    let handed = false;
    void s.nextCallback().then(() => (handed = true));
    expect(await exchange(s.port, '', { keepOpen: true })).toMatch(/^HTTP\/1.1 404 /);
    expect(handed).toBe(false);
  });

  it('a preconnect that closes at once does not end the wait', async () => {
    const s = await listen();
    await new Promise<void>((resolve) => {
      const socket: Socket = connect(s.port, '127.0.0.1', () => socket.end());
      socket.on('close', () => resolve());
    });
    const answer = exchange(s.port, 'GET /callback?code=c&state=s HTTP/1.1\r\n\r\n', { keepOpen: true });
    await expect(s.nextCallback()).resolves.toBe('/callback?code=c&state=s');
    await s.reply({ kind: 'success' });
    await answer;
  });

  it('reads at most 4096 bytes: a longer request line is refused (400) and the wait goes on', async () => {
    const s = await listen();
    const huge = `GET /callback?code=${'x'.repeat(5000)}&state=s HTTP/1.1\r\n\r\n`;
    expect(await exchange(s.port, huge, { keepOpen: true })).toMatch(/^HTTP\/1.1 400 /);
    const answer = exchange(
      s.port,
      `GET /callback?code=${'y'.repeat(3000)}&state=s HTTP/1.1\r\n` + 'X: '.padEnd(3000, 'z') + '\r\n\r\n',
      {
        keepOpen: true,
      },
    );
    await expect(s.nextCallback()).resolves.toBe(`/callback?code=${'y'.repeat(3000)}&state=s`);
    await s.reply({ kind: 'success' });
    await answer;
  });

  it('two callbacks racing: the first is judged, the second answered 409', async () => {
    const s = await listen();
    const first = exchange(s.port, 'GET /callback?code=1&state=a HTTP/1.1\r\n\r\n', { keepOpen: true });
    await expect(s.nextCallback()).resolves.toBe('/callback?code=1&state=a');
    expect(await exchange(s.port, 'GET /callback?code=2&state=b HTTP/1.1\r\n\r\n')).toMatch(/^HTTP\/1.1 409 /);
    await expect(s.nextCallback()).resolves.toBe('/callback?code=1&state=a');
    await s.reply({ kind: 'success' });
    await first;
  });

  it('a request line split over several packets is still read', async () => {
    const s = await listen();
    const socket = connect(s.port, '127.0.0.1');
    socket.write('GET /call');
    await new Promise((r) => setTimeout(r, 20));
    socket.write('back?code=c&state=s HTTP/1.1\r\n\r\n');
    await expect(s.nextCallback()).resolves.toBe('/callback?code=c&state=s');
    socket.destroy();
  });

  it('closes: the port is free again', async () => {
    const s = await listen();
    const port = s.port;
    await s.close();
    server = undefined;
    const again = await new LoopbackCallbackListener({ idleMs: 300, preferredPorts: [] }).listen(port);
    expect(again.port).toBe(port);
    await again.close();
  });
});
