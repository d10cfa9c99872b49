import { Client, credentials, Metadata, ServiceError, status as Code } from '@grpc/grpc-js';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, constants, IncomingHttpHeaders } from 'node:http2';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { TaskService } from '../../../../../src/application/shim/task/task-service';
import { GrpcTaskServer } from '../../../../../src/adapters/shim/inbound/grpc/grpc-server';
import { encodeGrpcMessage, frameMessage } from '../../../../../src/adapters/shim/wire/grpc/grpc-framing';
import { buildContainer } from '../../../../../src/infrastructure/shared/container';
import { task } from '../../../../../src/adapters/shim/wire/proto/generated/task/v2/shim';
import { BundleFactory } from '../../../../support/bundles';

const pb = task.v2;
const passBytes = (bytes: Buffer): Buffer => bytes;

/** A unary call with bytes in and out, as any gRPC client sends it. */
function call(client: Client, method: string, request: Uint8Array, deadlineMs?: number): Promise<Buffer> {
  const options = deadlineMs === undefined ? {} : { deadline: Date.now() + deadlineMs };
  return new Promise((resolve, reject) =>
    client.makeUnaryRequest(
      `/task.v2.Task/${method}`,
      passBytes,
      passBytes,
      Buffer.from(request),
      new Metadata(),
      options,
      (err: ServiceError | null, reply?: Buffer) => (err ? reject(err) : resolve(reply as Buffer)),
    ),
  );
}

function failure(pending: Promise<Buffer>): Promise<ServiceError> {
  return pending.then(
    () => {
      throw new Error('the call succeeded');
    },
    (err: ServiceError) => err,
  );
}

/** One raw HTTP/2 request: what the server answers in its headers and trailers. */
function rawRequest(
  socket: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ headers: IncomingHttpHeaders; trailers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const session = connect('http://localhost', { createConnection: () => netConnect(socket) });
    session.on('error', reject);
    const stream = session.request({ ':method': 'POST', ...headers });
    let answered: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders = {};
    stream.on('response', (h) => (answered = h));
    stream.on('trailers', (t) => (trailers = t));
    stream.on('data', () => undefined);
    stream.on('close', () => {
      session.close();
      resolve({ headers: answered, trailers });
    });
    stream.end(body);
  });
}

describe('GrpcTaskServer (task.v2.Task over node:http2)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-grpc-server-'));
  const socket = join(dir, 'shim.sock');
  const bundles = new BundleFactory();
  let service: TaskService;
  let server: GrpcTaskServer;
  let client: Client;

  beforeAll(async () => {
    service = buildContainer({ shim: { runtime: 'native', stateDir: join(dir, 'state') } }).get(TaskService);
    server = await GrpcTaskServer.listen({ address: socket }, service);
    client = new Client(`unix:${socket}`, credentials.createInsecure());
  });
  afterAll(async () => {
    client.close();
    await service.stopEverything(0);
    await server.stop();
    bundles.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a call with its reply, and a failure with its code and message', async () => {
    const bundle = bundles.make(['true']);
    const created = pb.CreateTaskResponse.deserialize(
      await call(client, 'Create', new pb.CreateTaskRequest({ id: 'one', bundle }).serialize()),
    );
    expect(created.pid).toBeGreaterThan(0);
    const err = await failure(call(client, 'Create', new pb.CreateTaskRequest({ id: 'one', bundle }).serialize()));
    expect([err.code, err.details]).toEqual([Code.ALREADY_EXISTS, 'task "one" already exists']);
    await call(client, 'Delete', new pb.DeleteRequest({ id: 'one' }).serialize());
  });

  it('answers UNIMPLEMENTED, naming the path, for a method the service does not have', async () => {
    const err = await failure(call(client, 'Teleport', Buffer.alloc(0)));
    expect([err.code, err.details]).toEqual([
      Code.UNIMPLEMENTED,
      'The server does not implement the method /task.v2.Task/Teleport',
    ]);
  });

  it('reads a request its client compressed with gzip', async () => {
    const gzipClient = new Client(`unix:${socket}`, credentials.createInsecure(), {
      'grpc.default_compression_algorithm': 2,
    });
    const err = await failure(call(gzipClient, 'State', new pb.StateRequest({ id: 'ghost' }).serialize()));
    gzipClient.close();
    expect([err.code, err.details]).toEqual([Code.NOT_FOUND, 'task "ghost" not found']);
    const flagged = Buffer.concat([
      Buffer.from([1, 0, 0, 0, 0]),
      gzipSync(new pb.StateRequest({ id: 'ghost' }).serialize()),
    ]);
    flagged.writeUInt32BE(flagged.length - 5, 1);
    const raw = await rawRequest(
      socket,
      { ':path': '/task.v2.Task/State', 'content-type': 'application/grpc', 'grpc-encoding': 'snappy' },
      flagged,
    );
    expect(raw.headers['grpc-status']).toBe(String(Code.UNIMPLEMENTED));
    expect(raw.headers['grpc-message']).toBe(
      encodeGrpcMessage('Received message compressed with unsupported encoding "snappy"'),
    );
  });

  it('answers DEADLINE_EXCEEDED when grpc-timeout passes, and the call goes on unanswered', async () => {
    const bundle = bundles.make(['sleep', '30']);
    await call(client, 'Create', new pb.CreateTaskRequest({ id: 'slow', bundle }).serialize());
    const raw = await rawRequest(
      socket,
      { ':path': '/task.v2.Task/Wait', 'content-type': 'application/grpc', 'grpc-timeout': '50m' },
      frameMessage(new pb.WaitRequest({ id: 'slow' }).serialize()),
    );
    expect([raw.headers['grpc-status'], raw.headers['grpc-message']]).toEqual([
      String(Code.DEADLINE_EXCEEDED),
      'Deadline exceeded',
    ]);
    const state = pb.StateResponse.deserialize(
      await call(client, 'State', new pb.StateRequest({ id: 'slow' }).serialize()),
    );
    expect(state.pid).toBeGreaterThan(0);
    await call(client, 'Kill', new pb.KillRequest({ id: 'slow', signal: 9 }).serialize());
    await call(client, 'Delete', new pb.DeleteRequest({ id: 'slow' }).serialize());
  });

  it('answers HTTP 415 to a request that is not gRPC, and INTERNAL to a body that holds two messages', async () => {
    const notGrpc = await rawRequest(
      socket,
      { ':path': '/task.v2.Task/State', 'content-type': 'text/plain' },
      Buffer.from('hi'),
    );
    expect(notGrpc.headers[constants.HTTP2_HEADER_STATUS]).toBe(415);
    const one = frameMessage(new pb.StateRequest({ id: 'ghost' }).serialize());
    const two = await rawRequest(
      socket,
      { ':path': '/task.v2.Task/State', 'content-type': 'application/grpc' },
      Buffer.concat([one, one]),
    );
    expect(two.headers['grpc-status']).toBe(String(Code.INTERNAL));
  });

  it('answers RESOURCE_EXHAUSTED to a body that grows past 4 MiB whatever its prefix declared', async () => {
    const body = Buffer.alloc(5 * 1024 * 1024);
    body.writeUInt32BE(10, 1);
    const raw = await rawRequest(socket, { ':path': '/task.v2.Task/State', 'content-type': 'application/grpc' }, body);
    expect(raw.headers['grpc-status']).toBe(String(Code.RESOURCE_EXHAUSTED));
  });

  it("bounds each connection as the runc shim's ttrpc is bounded: 128 concurrent streams announced, a 4 MiB request still served", async () => {
    const session = connect('http://localhost', { createConnection: () => netConnect(socket) });
    try {
      await new Promise((resolve) => session.once('remoteSettings', resolve));
      expect(session.remoteSettings.maxConcurrentStreams).toBe(128);
    } finally {
      session.close();
    }
    // A message of 4 MiB exactly: a State of an unknown task, padded with an unknown field (15) that decoders skip.
    const state = Buffer.from(new pb.StateRequest({ id: 'nosuch' }).serialize());
    const padLength = 4 * 1024 * 1024 - state.length - 1 - 4;
    const varint = Buffer.from([
      (padLength & 0x7f) | 0x80,
      ((padLength >> 7) & 0x7f) | 0x80,
      ((padLength >> 14) & 0x7f) | 0x80,
      padLength >> 21,
    ]);
    const message = Buffer.concat([state, Buffer.from([(15 << 3) | 2]), varint, Buffer.alloc(padLength, 0x61)]);
    expect(message.length).toBe(4 * 1024 * 1024);
    const raw = await rawRequest(
      socket,
      { ':path': '/task.v2.Task/State', 'content-type': 'application/grpc' },
      Buffer.from(frameMessage(message)),
    );
    expect(raw.headers['grpc-status'] ?? raw.trailers['grpc-status']).toBe(String(Code.NOT_FOUND));
  });

  it('keeps serving after a client cancels a call in flight', async () => {
    const bundle = bundles.make(['sleep', '30']);
    await call(client, 'Create', new pb.CreateTaskRequest({ id: 'cancelled', bundle }).serialize());
    const waiting = client.makeUnaryRequest(
      '/task.v2.Task/Wait',
      passBytes,
      passBytes,
      Buffer.from(new pb.WaitRequest({ id: 'cancelled' }).serialize()),
      () => undefined,
    );
    await new Promise((r) => setTimeout(r, 20));
    waiting.cancel();
    await call(client, 'Kill', new pb.KillRequest({ id: 'cancelled', signal: 9 }).serialize());
    const deleted = pb.DeleteResponse.deserialize(
      await call(client, 'Delete', new pb.DeleteRequest({ id: 'cancelled' }).serialize()),
    );
    expect(deleted.exit_status).toBe(137);
  });

  it('percent-encodes grpc-message outside printable ASCII, and % itself', () => {
    expect(encodeGrpcMessage('100% "é"\nnext')).toBe('100%25 "%C3%A9"%0Anext');
  });

  it('on stop lets a call in flight finish, then removes the socket', async () => {
    const other = join(dir, 'stopping.sock');
    const stopping = await GrpcTaskServer.listen({ address: other }, service);
    const c = new Client(`unix:${other}`, credentials.createInsecure());
    const bundle = bundles.make(['sleep', '0.2']);
    await call(c, 'Create', new pb.CreateTaskRequest({ id: 'brief', bundle }).serialize());
    await call(c, 'Start', new pb.StartRequest({ id: 'brief' }).serialize());
    const waited = call(c, 'Wait', new pb.WaitRequest({ id: 'brief' }).serialize());
    await new Promise((r) => setTimeout(r, 20));
    await stopping.stop();
    expect(pb.WaitResponse.deserialize(await waited).exit_status).toBe(0);
    expect(existsSync(other)).toBe(false);
    c.close();
    await service.delete({ id: 'brief', execId: '' });
  });
});
