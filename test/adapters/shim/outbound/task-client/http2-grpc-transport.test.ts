import { constants, createServer, Http2Server, ServerHttp2Stream } from 'node:http2';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { frameMessage, MAX_MESSAGE_LENGTH } from '../../../../../src/adapters/shim/wire/grpc/grpc-framing';
import { encodeGrpcMessage } from '../../../../../src/adapters/shim/wire/grpc/grpc-framing';
import { http2GrpcTransport } from '../../../../../src/adapters/shim/outbound/task-client/http2-grpc-transport';
import { UnaryTransport } from '../../../../../src/adapters/shim/outbound/task-client/rpc-task-client';
import { RpcCode } from '../../../../../src/adapters/shim/wire/rpc-code';
import { grpcJsTransport } from './grpc-js-transport';

/**
 * skiff's gRPC client on node:http2 and grpc-js, side by side against servers that answer
 * in each way the wire allows (grpc/grpc doc/PROTOCOL-HTTP2.md): the same reply bytes, or
 * the same status code. The whole service is held by the TaskClient contract
 * (task-client.test.ts), through both clients, against a running shim.
 */
type Answer = (stream: ServerHttp2Stream) => void;

let dir: string;
let server: Http2Server;
let answer: Answer;
let socket: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'skiff-h2c-'));
  socket = join(dir, 'grpc.sock');
  server = createServer();
  server.on('stream', (stream, headers) => {
    expect(headers[':method']).toBe('POST');
    expect(headers[':path']).toBe('/task.v2.Task/State');
    expect(headers['content-type']).toBe('application/grpc');
    expect(headers.te).toBe('trailers');
    // A stream this side resets (REFUSED_STREAM) reports it as an error here too.
    stream.on('error', () => undefined);
    stream.on('data', () => undefined);
    stream.on('end', () => answer(stream));
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const CLIENTS: Record<string, (address: string) => UnaryTransport> = {
  'node:http2': http2GrpcTransport,
  'grpc-js': grpcJsTransport,
};

/** The one State call through each client: its reply, or its failure's code and details. */
async function bothClients(address = socket): Promise<Record<string, unknown>> {
  const outcomes: Record<string, unknown> = {};
  for (const [name, make] of Object.entries(CLIENTS)) {
    const transport = make(address);
    try {
      outcomes[name] = { reply: await transport.call('State', Buffer.from('request')) };
    } catch (err) {
      const { code, details } = err as { code: number; details: string };
      outcomes[name] = { code, details };
    } finally {
      transport.close();
    }
  }
  return outcomes;
}

const OK_HEADERS = { ':status': 200, 'content-type': 'application/grpc' };

function replyWith(body: Buffer, headers: Record<string, string | number> = {}): Answer {
  return (stream) => {
    stream.respond({ ...OK_HEADERS, ...headers }, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0', 'grpc-message': 'OK' }));
    stream.end(body);
  };
}

describe('the node:http2 gRPC client answers as grpc-js does', () => {
  it('one message in the reply: the same bytes', async () => {
    answer = replyWith(frameMessage(Buffer.from('the reply')));
    const outcomes = await bothClients();
    expect(outcomes['node:http2']).toEqual({ reply: Buffer.from('the reply') });
    expect(outcomes['node:http2']).toEqual(outcomes['grpc-js']);
  });

  it('a gzip-compressed reply: the same bytes', async () => {
    const compressed = gzipSync(Buffer.from('squeezed'));
    const frame = frameMessage(compressed);
    frame[0] = 1;
    answer = replyWith(frame, { 'grpc-encoding': 'gzip' });
    const outcomes = await bothClients();
    expect(outcomes['node:http2']).toEqual({ reply: Buffer.from('squeezed') });
    expect(outcomes['node:http2']).toEqual(outcomes['grpc-js']);
  });

  it('a trailers-only failure with a percent-encoded message: the same code and details', async () => {
    answer = (stream) =>
      stream.respond(
        {
          ...OK_HEADERS,
          'grpc-status': String(RpcCode.NOT_FOUND),
          'grpc-message': encodeGrpcMessage('tâche « c1 » 100%'),
        },
        { endStream: true },
      );
    const outcomes = await bothClients();
    expect(outcomes['node:http2']).toEqual({ code: RpcCode.NOT_FOUND, details: 'tâche « c1 » 100%' });
    expect(outcomes['node:http2']).toEqual(outcomes['grpc-js']);
  });

  it('a failure in the trailers after the headers: the same code and details', async () => {
    answer = (stream) => {
      stream.respond(OK_HEADERS, { waitForTrailers: true });
      stream.once('wantTrailers', () =>
        stream.sendTrailers({ 'grpc-status': String(RpcCode.FAILED_PRECONDITION), 'grpc-message': 'not running' }),
      );
      stream.end();
    };
    const outcomes = await bothClients();
    expect(outcomes['node:http2']).toEqual({ code: RpcCode.FAILED_PRECONDITION, details: 'not running' });
    expect(outcomes['node:http2']).toEqual(outcomes['grpc-js']);
  });

  it.each([
    [404, RpcCode.UNIMPLEMENTED],
    [415, RpcCode.UNKNOWN],
    [503, RpcCode.UNAVAILABLE],
  ])('HTTP status %d without grpc-status: code %d from both', async (status, code) => {
    answer = (stream) => stream.respond({ ':status': status }, { endStream: true });
    const outcomes = await bothClients();
    expect(outcomes['node:http2']).toMatchObject({ code });
    expect(outcomes['grpc-js']).toMatchObject({ code });
  });

  it('a stream refused by the server: UNAVAILABLE from both', async () => {
    answer = (stream) => stream.close(constants.NGHTTP2_REFUSED_STREAM);
    const outcomes = await bothClients();
    expect(outcomes['node:http2']).toMatchObject({ code: RpcCode.UNAVAILABLE });
    expect(outcomes['grpc-js']).toMatchObject({ code: RpcCode.UNAVAILABLE });
  });

  it('a reply over 4 MiB: RESOURCE_EXHAUSTED from both', async () => {
    answer = replyWith(frameMessage(Buffer.alloc(MAX_MESSAGE_LENGTH + 1)));
    const outcomes = await bothClients();
    expect(outcomes['node:http2']).toMatchObject({ code: RpcCode.RESOURCE_EXHAUSTED });
    expect(outcomes['grpc-js']).toMatchObject({ code: RpcCode.RESOURCE_EXHAUSTED });
  });

  it('the connection dropped before the reply: UNAVAILABLE from both', async () => {
    answer = (stream) => stream.session?.destroy();
    const outcomes = await bothClients();
    expect(outcomes['node:http2']).toMatchObject({ code: RpcCode.UNAVAILABLE });
    expect(outcomes['grpc-js']).toMatchObject({ code: RpcCode.UNAVAILABLE });
  });

  it('nobody at the socket: UNAVAILABLE from both, at once', async () => {
    const outcomes = await bothClients(join(dir, 'nobody.sock'));
    expect(outcomes['node:http2']).toMatchObject({ code: RpcCode.UNAVAILABLE });
    expect(outcomes['grpc-js']).toMatchObject({ code: RpcCode.UNAVAILABLE });
  });

  it('calls one after another share one connection, and a new one is opened after the server drops it', async () => {
    answer = replyWith(frameMessage(Buffer.from('again')));
    const sessions = new Set<unknown>();
    const onSession = (session: unknown) => sessions.add(session);
    server.on('session', onSession);
    const transport = http2GrpcTransport(socket);
    try {
      await transport.call('State', Buffer.alloc(0));
      await transport.call('State', Buffer.alloc(0));
      expect(sessions.size).toBe(1);
      for (const session of sessions) (session as { destroy(): void }).destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await expect(transport.call('State', Buffer.alloc(0))).resolves.toEqual(Buffer.from('again'));
      expect(sessions.size).toBe(2);
    } finally {
      transport.close();
      server.off('session', onSession);
    }
  });
});
