import { connect } from 'node:net';
import { rmSync } from 'node:fs';
import { waitFor } from '../../support/wait-for';
import { frame } from '../../e2e/support/ttrpc-wire';
import {
  alive,
  keeperPids,
  layout,
  openFds,
  outcome,
  relayedInFlight,
  serverPids,
  start,
  TaskCalls,
} from '../../e2e/keeper/keeper-support';
import { SanitizedProgram } from '../support/sanitized-program';

/**
 * containerd-shim-skiff-v2's `keep` mode, the pod keeper (docs/keeper-protocol.md): start, relay,
 * the serving process killed with calls in flight and restarted, a bad frame, odd requests, many
 * connections, its exit after Shutdown (LeakSanitizer runs then).
 */
const NS = 'sns';
const l = layout(NS);

export const podKeeper: SanitizedProgram = {
  target: 'containerd-shim-skiff-v2',
  mode: 'keep',
  cases: [
    {
      name: 'start, relay, a restart with calls in flight, a bad frame, many connections and its exit after Shutdown',
      async run(binary, runs) {
        const started = start(binary, l, NS, 'a1', runs.env({}));
        expect([started.status, started.stderr]).toEqual([0, '']);
        const c = new TaskCalls(started.socket);
        await outcome(c.state('a1'));
        const [server] = serverPids(l);
        process.kill(server, 'SIGSTOP');
        const [keeper] = keeperPids(l.address);
        const inFlight = await relayedInFlight(keeper, c, () =>
          [c.wait('a1'), c.create('a1', started.bundle), c.kill('a1')].map((call) => outcome(call)),
        );
        process.kill(server, 'SIGKILL');
        const codes = (await Promise.all(inFlight)).map((o) => o.code);
        expect(codes).toEqual([5, 14, 14]);

        const bad = connect(started.socket);
        bad.on('error', () => undefined);
        await new Promise<void>((resolve) => {
          bad.on('close', () => resolve());
          bad.write(Buffer.from([0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 1, 1, 0]));
        });
        // Requests whose protobuf the keeper cannot read (a length past the end, a varint of 11
        // bytes) and a Response from containerd's side: the keeper relays them as they are.
        const odd = connect(started.socket);
        odd.write(frame(1, 1, Buffer.from([0x12, 0xff, 0xff, 0xff, 0xff, 0x0f])));
        odd.write(frame(3, 1, Buffer.alloc(11, 0x80)));
        odd.write(frame(5, 2, Buffer.from('not a request')));
        await new Promise((r) => setTimeout(r, 100));
        odd.destroy();
        const many = Array.from({ length: 30 }, () => new TaskCalls(started.socket));
        await Promise.all(many.map((m) => outcome(m.state('x'))));
        many.forEach((m) => m.close());
        c.close();

        // The calls above may have left tasks: only a Shutdown on its last connection ends it now.
        // Its own six descriptors: stdio, the listener, epoll, signalfd; every connection closed.
        await waitFor('the keeper to close the connections', () => openFds(keeper) === 6);
        const last = new TaskCalls(started.socket);
        expect(await outcome(last.shutdown('a1'))).toEqual({ code: 0, message: '' });
        last.close();
        await waitFor('the sanitized keeper to leave', () => !alive(keeper));
      },
    },
  ],
  cleanUp() {
    [...keeperPids(l.address), ...serverPids(l)].forEach((pid) => process.kill(pid, 'SIGKILL'));
    rmSync(l.root, { recursive: true, force: true });
  },
};
