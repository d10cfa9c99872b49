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

  it('refuses a path a live server holds', async () => {
    const path = join(dir, 'taken.sock');
    const first = await TtrpcServer.listen({ address: path }, services);
    await expect(TtrpcServer.listen({ address: path }, services)).rejects.toThrow('already serving');
    await first.stop();
  });
});
