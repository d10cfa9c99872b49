import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeControl, encodeControl } from '../../../../../src/adapters/shim/outbound/keeper/control-message';
import {
  exitOfWaitStatus,
  PodKeepers,
  podSocketOfBundle,
} from '../../../../../src/adapters/shim/outbound/keeper/pod-keepers';
import { nativeAddon } from '../../../../../src/adapters/shim/os/native-addon';
import { ProcessExit } from '../../../../../src/domain/shim/exit-status';
import { waitFor } from '../../../../support/wait-for';

/**
 * The serving process's pod keepers (docs/keeper-protocol.md, "As built"): a test plays the
 * keeper on a real unix socket and reads what the serving process sends back.
 */
describe('PodKeepers', () => {
  let dir: string;
  let server: Server;
  let keepers: PodKeepers;
  /** Both ends of every connection, closed after each test (a failed one too). */
  const sockets: Socket[] = [];
  const POD = '/run/k-test.sock';

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'skiff-pod-keepers-'));
    keepers = new PodKeepers((fd, data, fds) => nativeAddon().sendWithFds(fd, data, fds));
    server = createServer((socket) => {
      socket.pause();
      sockets.push(socket);
      keepers.accept(socket, POD, Buffer.alloc(0));
    });
    await new Promise<void>((resolve) => server.listen(join(dir, 's.sock'), resolve));
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** A keeper's end of the control connection: what it sends, and the messages it got. */
  async function keeper(): Promise<{
    send: (type: string, fields: string[]) => void;
    got: string[];
    close: () => void;
  }> {
    const socket: Socket = connect(join(dir, 's.sock'));
    sockets.push(socket);
    await new Promise((resolve) => socket.on('connect', resolve));
    const got: string[] = [];
    let buffered: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const decoded = decodeControl(buffered);
      if (decoded.malformed) throw new Error('bad message from the serving process');
      buffered = decoded.rest;
      for (const m of decoded.messages) got.push(`${m.type} ${m.fields.join(' ')}`);
    });
    return { send: (type, fields) => socket.write(encodeControl(type, fields)), got, close: () => socket.destroy() };
  }

  it('tells an exit to its watcher once, with its real status, then acks it; a resent or unknown exit is acked at once', async () => {
    const exits: ProcessExit[] = [];
    keepers.watchAdopted(POD, 'c1', { report: async (exit) => void exits.push(exit) });
    const k = await keeper();
    k.send('H', ['c1', '100']);
    k.send('E', ['c1', '100', String(7 << 8), '1700000000', '250000000']);
    await waitFor('the ack of c1', () => k.got.includes('A c1'));
    // The keeper resends it on a new connection before it saw the ack: recorded already.
    k.close();
    const again = await keeper();
    again.send('H', []);
    again.send('E', ['c1', '100', String(7 << 8), '1700000000', '5']);
    again.send('E', ['gone', '101', '9', '1700000000', '6']);
    await waitFor('the acks of the resent and the unknown exit', () =>
      ['A c1', 'A gone'].every((m) => again.got.includes(m)),
    );
    // With the time of the reap, not of the telling: an exit during an outage is learnt later.
    expect(exits).toEqual([{ code: 7, signal: null, exitedAt: new Date(1_700_000_000_250) }]);
    again.close();
  });

  it('reports 255 for an adopted key that the hello does not list and whose exit does not follow', async () => {
    const exits: ProcessExit[] = [];
    keepers.watchAdopted(POD, 'lost', { report: async (exit) => void exits.push(exit) });
    keepers.watchAdopted(POD, 'held', { report: async (exit) => void exits.push(exit) });
    const k = await keeper();
    k.send('H', ['held', '200']);
    await waitFor('the lost key reported', () => exits.length > 0, 3000);
    expect(exits).toEqual([{ code: 255, signal: null }]);
    k.close();
  });

  it('fails a launch in flight when its keeper dies, UNAVAILABLE and naming the pod and key, instead of waiting', async () => {
    const k = await keeper();
    await waitFor('the control connection', () => sockets.length === 2);
    const launch = keepers.launch(POD, { key: 't9', argv: ['/bin/true'] }, { report: async () => undefined });
    await waitFor('the launch at the keeper', () => k.got.some((m) => m.startsWith('L ')));
    k.close();
    await expect(launch).rejects.toMatchObject({
      kind: 'Network',
      message: expect.stringMatching(/^the pod keeper of \/run\/k-test\.sock was lost while it launched t9 \(/),
    });
  });

  it('hands over: acks every exit it took once reported, takes no message after, then closes', async () => {
    let report: () => void = () => undefined;
    const exits: ProcessExit[] = [];
    keepers.watchAdopted(POD, 'c1', {
      report: (exit) => {
        exits.push(exit);
        return new Promise<void>((resolve) => (report = resolve));
      },
    });
    keepers.watchAdopted(POD, 'c2', { report: async (exit) => void exits.push(exit) });
    const k = await keeper();
    let closed = false;
    (sockets.at(-1) as Socket).on('close', () => (closed = true));
    k.send('H', ['c1', '100', 'c2', '101']);
    k.send('E', ['c1', '100', '0', '1700000000', '5']);
    await waitFor('the exit of c1 to be told', () => exits.length === 1);
    let handedOver = false;
    const handing = keepers.handOver().then(() => (handedOver = true));
    // An exit after the hand-over began is the next serving process's (the keeper sends it again).
    k.send('E', ['c2', '101', '0', '1700000000', '6']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect([handedOver, closed, k.got]).toEqual([false, false, []]);
    report();
    await handing;
    await waitFor('the control connection to close', () => closed);
    expect(k.got).toEqual(['A c1']);
    expect(exits).toEqual([{ code: 0, signal: null, exitedAt: new Date(1_700_000_000_000) }]);
  });

  it("sends a CloseIO's C and a Delete's D that came before the keeper's control connection (a restart) once it is there", async () => {
    const closing = keepers.closeStdin(POD, 't1');
    const releasing = keepers.release(POD, 't1');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const k = await keeper();
    await Promise.all([closing, releasing]);
    await waitFor('C and D', () => k.got.length === 2);
    expect(k.got).toEqual(['C t1', 'D t1']);
    k.close();
  });

  it('releases a key asked for before any control connection first thing on the next one, once (a Delete meanwhile sends its own D instead)', async () => {
    keepers.releaseOnConnect(POD, 't1/late');
    keepers.releaseOnConnect(POD, 't1/gone');
    void keepers.release(POD, 't1/gone');
    // A pod whose keeper never comes back keeps nothing once its tasks are dropped.
    keepers.releaseOnConnect('/run/k-dead.sock', 't2/late');
    keepers.drop('/run/k-dead.sock', 't2/late');
    expect(keepers.releasesWaiting).toEqual({ pods: 1, keys: 1 });
    const k = await keeper();
    await waitFor('the releases', () => k.got.length === 2);
    expect(k.got).toEqual(['D t1/late', 'D t1/gone']);
    expect(keepers.releasesWaiting).toEqual({ pods: 0, keys: 0 });
    k.close();
    const next = await keeper();
    keepers.releaseOnConnect(POD, 't1/now');
    await waitFor('the release on the open connection', () => next.got.length === 1);
    expect(next.got).toEqual(['D t1/now']);
    next.close();
  });

  it('fails a CloseIO (try again) when no control connection came within 2 s; a Delete goes on, said on the log', async () => {
    const lines: string[] = [];
    const alone = new PodKeepers(
      () => undefined,
      (line) => lines.push(line),
    );
    await expect(alone.closeStdin('/run/k-none.sock', 't1')).rejects.toMatchObject({ code: 'KEEPER.NO_CONTROL' });
    await alone.release('/run/k-none.sock', 't1');
    expect(lines).toEqual([expect.stringContaining('the release of t1: the pod keeper of /run/k-none.sock')]);
  });

  it('maps wait statuses, and finds the pod socket in a bundle', () => {
    expect(exitOfWaitStatus(9)).toEqual({ code: null, signal: 9 });
    expect(exitOfWaitStatus(3 << 8)).toEqual({ code: 3, signal: null });
    expect(exitOfWaitStatus(0, { seconds: 1_700_000_001, nanoseconds: 999_999_999 })).toEqual({
      code: 0,
      signal: null,
      exitedAt: new Date(1_700_000_001_999),
    });
    writeFileSync(join(dir, 'address'), 'unix:///run/x/k-1.sock');
    expect(podSocketOfBundle(dir)).toBe('/run/x/k-1.sock');
    expect(podSocketOfBundle(join(dir, 'none'))).toBeUndefined();
  });
});
