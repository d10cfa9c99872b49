import { status as Code } from '@grpc/grpc-js';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from '../../../../../src/domain/shared/errors';
import { MethodTable } from '../../../../../src/adapters/shim/inbound/ttrpc/ttrpc-dispatch';
import { TtrpcServer } from '../../../../../src/adapters/shim/inbound/ttrpc/ttrpc-server';
import { nativeAddon } from '../../../../../src/adapters/shim/os/native-addon';
import { TtrpcClient } from '../../../../../src/adapters/shim/wire/ttrpc/ttrpc-client';
import { socketAccepts } from '../../../../../src/adapters/shim/os/socket-accepts';
import { socketFd } from '../../../../../src/adapters/shim/os/socket-fd';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const never = new Promise<Buffer>(() => undefined);
const methods: MethodTable = new Map([
  ['Echo', async (b: Buffer) => b],
  ['Slow', async () => (await sleep(100), Buffer.from('done'))],
  ['Hang', () => never],
]);
const services = new Map([['test.S', methods]]);

describe('TtrpcServer listening and stopping', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-ttrpc-server-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves on a descriptor that already listens, as a shim given its socket as fd 3', async () => {
    const path = join(dir, 'fd.sock');
    const fd = nativeAddon().listenUnix(path);
    const server = await TtrpcServer.listen({ fd }, services);
    expect(server.path).toBeUndefined();
    const client = new TtrpcClient(path);
    expect((await client.call('test.S', 'Echo', Buffer.from('over fd'))).toString()).toBe('over fd');
    client.close();
    await server.stop();
    expect(await socketAccepts(path)).toBe(false);
  });

  it('refuses a descriptor that is not a listening socket, saying so in one line', async () => {
    const err = await TtrpcServer.listen({ fd: 987 }, services).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as Error).message).toMatch(
      /^descriptor 987 is not a listening unix socket \(.*\); pass the listener the shim was given$/,
    );
  });

  it('makes the socket 0600 in a new 0700 directory; on stop answers the calls in flight, cuts the rest at the grace, removes the socket', async () => {
    const path = join(dir, 'new', 'stop.sock');
    const server = await TtrpcServer.listen({ address: `unix://${path}` }, services);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'new')).mode & 0o777).toBe(0o700);
    const busy = new TtrpcClient(path);
    const stuck = new TtrpcClient(path);
    const idle = new TtrpcClient(path);
    expect((await idle.call('test.S', 'Echo', Buffer.from('x'))).toString()).toBe('x');
    const slow = busy.call('test.S', 'Slow', Buffer.alloc(0));
    const hang = stuck.call('test.S', 'Hang', Buffer.alloc(0)).catch((e: { code: number }) => e.code);
    await sleep(20);
    const started = Date.now();
    await server.stop(300);
    expect((await slow).toString()).toBe('done');
    expect(await hang).toBe(Code.UNAVAILABLE);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(existsSync(path)).toBe(false);
    expect(idle.closed).toBe(true);
  });

  it('hands over: serves what was sent before, takes nothing after, closes once the calls that change something are answered, and leaves the listener to the next server', async () => {
    const path = join(dir, 'hand-over.sock');
    const addon = nativeAddon();
    const fd = addon.listenUnix(path);
    let echoed = 0;
    const handing = new Map([
      [
        'test.S',
        new Map([
          ['Slow', methods.get('Slow') as (b: Buffer) => Promise<Buffer>],
          ['Wait', () => never],
          ['Echo', async (b: Buffer) => (echoed++, b)],
        ]),
      ],
    ]);
    const server = await TtrpcServer.listen({ fd }, handing);
    const kept = addon.dupFd(fd);
    const client = new TtrpcClient(path);
    const other = new TtrpcClient(path);
    expect((await other.call('test.S', 'Echo', Buffer.from('before'))).toString()).toBe('before');
    const wait = client.call('test.S', 'Wait', Buffer.alloc(0)).catch((e: { code: number }) => e.code);
    const slow = client.call('test.S', 'Slow', Buffer.alloc(0));
    await sleep(20);
    const cut = server.handOver((socket) => addon.shutdownRead(socketFd(socket) as number), 2000);
    // A connection takes nothing from now on: its writes fail (a pod keeper keeps such a request for the next server).
    const late = other.call('test.S', 'Echo', Buffer.from('late')).catch((e: { code: number }) => e.code);
    expect((await slow).toString()).toBe('done');
    expect(await cut).toBe(0);
    // The Wait is left to the next server (a pod keeper sends it again); the late call never ran.
    expect(await wait).toBe(Code.UNAVAILABLE);
    expect(await late).toBe(Code.UNAVAILABLE);
    expect(echoed).toBe(1);
    // A connection made meanwhile waits in the listener's backlog for the next server.
    const next = new TtrpcClient(path);
    const answered = next.call('test.S', 'Echo', Buffer.from('next'));
    const successor = await TtrpcServer.listen({ fd: kept }, handing);
    expect((await answered).toString()).toBe('next');
    next.close();
    await successor.stop();
  });

  it('refuses a path a live server holds', async () => {
    const path = join(dir, 'taken.sock');
    const first = await TtrpcServer.listen({ address: path }, services);
    await expect(TtrpcServer.listen({ address: path }, services)).rejects.toThrow('already serving');
    await first.stop();
  });
});
