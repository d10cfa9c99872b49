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
 * The serving process's pod keepers (docs/keeper-protocol.md, "Built so far"): a test plays the
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
      if (decoded === 'bad') throw new Error('bad message from the serving process');
      buffered = decoded.rest;
      for (const m of decoded.messages) got.push(`${m.type} ${m.fields.join(' ')}`);
    });
    return { send: (type, fields) => socket.write(encodeControl(type, fields)), got, close: () => socket.destroy() };
  }

  it('tells an exit to its watcher once, with its real status, then acks it; a resent or unknown exit is acked at once', async () => {
    const exits: ProcessExit[] = [];
    keepers.watchAdopted(POD, 'c1', async (exit) => void exits.push(exit));
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
    keepers.watchAdopted(POD, 'lost', async (exit) => void exits.push(exit));
    keepers.watchAdopted(POD, 'held', async (exit) => void exits.push(exit));
    const k = await keeper();
    k.send('H', ['held', '200']);
    await waitFor('the lost key reported', () => exits.length > 0, 3000);
    expect(exits).toEqual([{ code: 255, signal: null }]);
    k.close();
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
