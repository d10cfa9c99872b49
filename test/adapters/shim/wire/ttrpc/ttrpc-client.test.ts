import { status as Code } from '@grpc/grpc-js';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NotFoundError } from '../../../../../src/domain/shared/errors';
import { TtrpcServer } from '../../../../../src/adapters/shim/inbound/ttrpc/ttrpc-server';
import { TtrpcClient } from '../../../../../src/adapters/shim/wire/ttrpc/ttrpc-client';
import { TtrpcError } from '../../../../../src/adapters/shim/wire/ttrpc/ttrpc-error';
import { decodeRequest, frame, responseMessage, WireRequest } from '../../../../e2e/support/ttrpc-wire';
import { waitFor } from '../../../../support/wait-for';

const text = (s: string) => Buffer.from(s);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function failure(call: Promise<unknown>): Promise<TtrpcError> {
  try {
    await call;
  } catch (err) {
    return err as TtrpcError;
  }
  throw new Error('expected the call to fail');
}

/** A peer that records the request frames it reads and answers as the test says. */
class ScriptedPeer {
  readonly requests: Array<WireRequest & { streamId: number }> = [];
  socket: Socket | undefined;
  private buffered = Buffer.alloc(0);

  private constructor(readonly server: Server) {}

  static async listen(path: string): Promise<ScriptedPeer> {
    const server = createServer();
    const peer = new ScriptedPeer(server);
    server.on('connection', (socket) => {
      peer.socket = socket;
      socket.on('data', (chunk: Buffer) => {
        peer.buffered = Buffer.concat([peer.buffered, chunk]);
        while (peer.buffered.length >= 10 && peer.buffered.length >= 10 + peer.buffered.readUInt32BE(0)) {
          const length = peer.buffered.readUInt32BE(0);
          peer.requests.push({
            streamId: peer.buffered.readUInt32BE(4),
            ...decodeRequest(peer.buffered.subarray(10, 10 + length)),
          });
          peer.buffered = peer.buffered.subarray(10 + length);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    return peer;
  }

  reply(streamId: number, payload: string, status?: { code: number; message: string }): void {
    this.socket?.write(frame(streamId, 2, responseMessage(text(payload), status)));
  }

  async received(count: number): Promise<void> {
    await waitFor(`${count} requests at the peer`, () => this.requests.length >= count);
  }

  close(): void {
    this.socket?.destroy();
    this.server.close();
  }
}

describe('TtrpcClient', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-ttrpc-client-'));
  let n = 0;
  const socketPath = () => join(dir, `s${n++}.sock`);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('numbers streams 1, 3, 5, sends timeout and metadata, and settles each call by its own reply, in any order', async () => {
    const path = socketPath();
    const peer = await ScriptedPeer.listen(path);
    const client = new TtrpcClient(`unix://${path}`);
    const calls = [
      client.call('svc.A', 'One', text('1')),
      client.call('svc.A', 'Two', text('2'), { timeoutMs: 5000, metadata: { 'containerd-namespace-ttrpc': 'k8s.io' } }),
      client.call('svc.A', 'Three', text('3')),
    ];
    await peer.received(3);
    expect(peer.requests.map((r) => [r.streamId, r.service, r.method, r.payload.toString()])).toEqual([
      [1, 'svc.A', 'One', '1'],
      [3, 'svc.A', 'Two', '2'],
      [5, 'svc.A', 'Three', '3'],
    ]);
    expect(peer.requests[1].timeoutNano).toBe(5e9);
    expect(peer.requests[1].metadata).toEqual([['containerd-namespace-ttrpc', 'k8s.io']]);
    expect(peer.requests[0].timeoutNano).toBe(0);
    peer.reply(99, 'nobody asked'); // a reply for no call in flight is dropped
    peer.reply(5, 'three');
    peer.reply(1, 'one', { code: 0, message: '' }); // an explicit OK status is success too
    peer.reply(3, '', { code: Code.NOT_FOUND, message: 'no such thing' });
    expect((await calls[2]).toString()).toBe('three');
    expect((await calls[0]).toString()).toBe('one');
    const err = await failure(calls[1]);
    expect([err.code, err.details]).toEqual([Code.NOT_FOUND, 'no such thing']);
    client.close();
    peer.close();
  });

  it('fails a call with DEADLINE_EXCEEDED at its timeout, drops the late reply, and keeps the connection', async () => {
    const path = socketPath();
    const peer = await ScriptedPeer.listen(path);
    const client = new TtrpcClient(path);
    const err = await failure(client.call('svc', 'Slow', text(''), { timeoutMs: 50 }));
    expect(err.code).toBe(Code.DEADLINE_EXCEEDED);
    peer.reply(1, 'too late');
    const next = client.call('svc', 'Fast', text(''));
    await peer.received(2);
    peer.reply(3, 'in time');
    expect((await next).toString()).toBe('in time');
    client.close();
    peer.close();
  });

  it('fails the calls in flight with UNAVAILABLE when the peer closes, and every later call at once', async () => {
    const path = socketPath();
    const peer = await ScriptedPeer.listen(path);
    const client = new TtrpcClient(path);
    const inFlight = client.call('svc', 'Wait', text(''));
    await peer.received(1);
    peer.close();
    expect(await failure(inFlight)).toMatchObject({ code: Code.UNAVAILABLE, details: 'ttrpc: closed' });
    expect(client.closed).toBe(true);
    expect((await failure(client.call('svc', 'Again', text('')))).code).toBe(Code.UNAVAILABLE);
  });

  it('fails with UNAVAILABLE, naming the path, when nobody listens', async () => {
    const path = join(dir, 'nobody.sock');
    const err = await failure(new TtrpcClient(path).call('svc', 'M', text('')));
    expect(err.code).toBe(Code.UNAVAILABLE);
    expect(err.details).toContain(path);
    expect(err.details).toContain('ENOENT');
  });

  it('talks to the ttrpc server adapter: concurrent calls, statuses, unknown names', async () => {
    const path = socketPath();
    const methods = new Map([
      ['Echo', async (b: Buffer) => b],
      ['Slow', async (b: Buffer) => (await sleep(Number(b.toString())), text('slept'))],
      [
        'Fail',
        async () => {
          throw new NotFoundError('thing "x" not found', 'TEST.NOT_FOUND');
        },
      ],
      [
        'Crash',
        async () => {
          throw new Error('boom');
        },
      ],
    ]);
    const server = await TtrpcServer.listen({ address: path }, new Map([['test.Echo', methods]]));
    const client = new TtrpcClient(path);
    const order: string[] = [];
    const slow = client.call('test.Echo', 'Slow', text('150')).then((b) => order.push(b.toString()));
    const echo = client.call('test.Echo', 'Echo', text('hi')).then((b) => order.push(b.toString()));
    await Promise.all([slow, echo]);
    expect(order).toEqual(['hi', 'slept']);
    expect(await failure(client.call('test.Echo', 'Fail', text('')))).toMatchObject({
      code: Code.NOT_FOUND,
      details: 'thing "x" not found',
    });
    expect(await failure(client.call('test.Echo', 'Crash', text('')))).toMatchObject({
      code: Code.INTERNAL,
      details: 'internal error: boom',
    });
    expect(await failure(client.call('test.Echo', 'Nope', text('')))).toMatchObject({
      code: Code.UNIMPLEMENTED,
      details: 'method Nope',
    });
    expect(await failure(client.call('test.Other', 'Echo', text('')))).toMatchObject({
      code: Code.UNIMPLEMENTED,
      details: 'service test.Other',
    });
    const big = Buffer.alloc(4 << 20, 0x61);
    expect((await failure(client.call('test.Echo', 'Echo', big))).code).toBe(Code.RESOURCE_EXHAUSTED);
    expect((await client.call('test.Echo', 'Echo', text('still here'))).toString()).toBe('still here');
    client.close();
    await server.stop();
  });
});
