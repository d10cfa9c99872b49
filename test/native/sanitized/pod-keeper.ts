import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync, writeSync, openSync, constants, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeControl } from '../../../src/adapters/shim/outbound/keeper/control-message';
import { nativeAddon } from '../../../src/adapters/shim/os/native-addon';
import { drain, fifo, PYTHON, ServingSide, TERMINAL_HELPER } from '../../e2e/keeper/control-support';
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
 * connections, its exit after Shutdown (LeakSanitizer runs then); the control connection: launches,
 * a pid file, a terminal, release, a malformed message, and its exit on SIGTERM once nothing is held.
 */
const NS = 'sns';
const l = layout(NS);
const lc = layout(NS);
const dir = mkdtempSync(join(tmpdir(), 'skiff-sanitized-control-'));

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
        // Wait is sent again (NOT_FOUND from the new server); the stopped server read nothing, so
        // the upstream ends with ECONNRESET and the newest call, Kill, is sent again too; Create,
        // which it cannot prove unread, is UNAVAILABLE.
        expect(codes).toEqual([5, 14, 5]);

        // A frame one byte over 4 MiB: its body discarded as it comes, then RESOURCE_EXHAUSTED on its
        // stream (as ttrpc's server, only once the body has passed).
        const bad = connect(started.socket);
        bad.on('error', () => undefined);
        const answer = await new Promise<string>((resolve) => {
          let got = '';
          bad.on('data', (d: Buffer) => (got += d.toString('latin1')).includes('4194304') && resolve(got));
          bad.write(Buffer.from([0x00, 0x40, 0x00, 0x01, 0, 0, 0, 1, 1, 0]));
          bad.write(Buffer.alloc(0x400001, 0x61));
        });
        expect(answer).toContain('message length 4194305 exceed maximum message size of 4194304');
        bad.destroy();
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
    {
      name: 'the control connection: launches, a daemon by pid file, a terminal, exits, release, a bad message, SIGTERM',
      async run(binary, runs) {
        const side = new ServingSide(lc);
        const fds: number[] = [];
        try {
          await side.start(NS, 'c1', binary, runs.env({}));
          const [keeper] = keeperPids(lc.address);
          const first = await side.next(0);
          const out = fifo(dir, 'out');
          fds.push(out.fd);
          const w = openSync(out.path, constants.O_WRONLY | constants.O_NONBLOCK);
          fds.push(w);
          const direct = await first.control.launch({
            key: 'a',
            argv: ['/bin/sh', '-c', 'echo out; exit 3'],
            fds: [
              { role: '1', fd: w },
              { role: 'H', fd: out.fd },
            ],
          });
          expect(direct.error).toBe('');
          const pidFile = join(dir, 'b.pid');
          const daemon = await first.control.launch({
            key: 'b',
            pidFile,
            argv: ['/bin/sh', '-c', `(sleep 0.2; exit 7) & echo $! > ${pidFile}`],
          });
          expect(daemon.error).toBe('');
          // `S`, runc's start handshake: a stand-in init that writes its byte, one that dies without it, no fifo.
          for (const [key, script, outcome] of [
            ['s1', 'exec 3>"$1"; printf 0 >&3; exec 3>&-; sleep 0.2', 'started'],
            ['s2', 'sleep 0.1; exit 3', 'dead'],
          ]) {
            const path = join(dir, `${key}.fifo`);
            execFileSync('mkfifo', [path]);
            const sPid = join(dir, `${key}.pid`);
            const init = await first.control.launch({
              key,
              pidFile: sPid,
              argv: ['/bin/sh', '-c', `(${script}) & echo $! > ${sPid}`, 'init', path],
            });
            expect(init.error).toBe('');
            expect(await first.control.start(key, path)).toEqual({ outcome, error: '' });
            expect(await first.control.start(key, join(dir, 'none.fifo'))).toEqual({ outcome: 'absent', error: '' });
          }
          // A log URI's logger: roles 3 4 5 and its own environment; released (SIGTERM) while it runs.
          const [logOut, logReady] = [nativeAddon().pipe(), nativeAddon().pipe()];
          fds.push(...logOut, ...logReady);
          const logger = await first.control.launch({
            key: 'g@log',
            env: ['CONTAINER_ID=g', 'CONTAINER_NAMESPACE=n'],
            argv: ['/bin/sh', '-c', 'exec 5>&-; cat <&3 >/dev/null'],
            fds: [
              { role: '3', fd: logOut[0] },
              { role: '5', fd: logReady[1] },
            ],
          });
          expect(logger.error).toBe('');
          first.control.release('g@log');
          // Only environment entries, no program: refused, nothing kept.
          expect(await first.control.launch({ key: 'e', env: ['A=1'], argv: [] })).toMatchObject({ status: -1 });
          expect(await first.control.launch({ key: 'c', argv: ['/nonexistent'] })).toMatchObject({ status: -1 });
          expect(await first.control.launch({ key: 'd', pidFile, argv: ['/bin/false'] })).toMatchObject({ pid: 0 });
          if (PYTHON !== undefined) {
            const helper = join(dir, 'helper.py');
            writeFileSync(helper, TERMINAL_HELPER);
            const tin = fifo(dir, 'tin');
            const tout = fifo(dir, 'tout');
            fds.push(tin.fd, tout.fd);
            const tw = openSync(tout.path, constants.O_WRONLY | constants.O_NONBLOCK);
            fds.push(tw);
            const consoleSocket = join(dir, 'console.sock');
            const tty = await first.control.launch({
              key: 't',
              pidFile: join(dir, 't.pid'),
              consoleSocket,
              argv: [PYTHON, helper, consoleSocket, join(dir, 't.pid'), 'read line; echo got $line'],
              fds: [
                { role: 'O', fd: tw },
                { role: 'N', fd: tin.fd },
              ],
            });
            expect(tty.error).toBe('');
            expect(await first.control.resize('t', 80, 24)).toBe('');
            writeSync(tin.fd, 'x\n');
            await waitFor('the terminal exit', () => first.exits.some((e) => e.key === 't'));
            expect(drain(tout.fd)).toContain('got x');
            // Output a full FIFO holds back: 'u' read late to its end, 'v' never read, then released.
            const size = 200_000;
            for (const key of ['u', 'v']) {
              const f = fifo(dir, `${key}out`);
              const fw = openSync(f.path, constants.O_WRONLY | constants.O_NONBLOCK);
              fds.push(f.fd, fw);
              const sock = join(dir, `${key}.sock`);
              const launched = await first.control.launch({
                key,
                pidFile: join(dir, `${key}.pid`),
                consoleSocket: sock,
                argv: [PYTHON, helper, sock, join(dir, `${key}.pid`), `head -c ${size} /dev/zero | tr '\\0' x`],
                fds: [{ role: 'O', fd: fw }],
              });
              expect(launched.error).toBe('');
              if (key === 'v') break;
              await new Promise((r) => setTimeout(r, 300));
              let text = '';
              await waitFor('the held-back output', () => (text += drain(f.fd)).length >= size);
              expect(text.length).toBe(size);
              await waitFor('its exit', () => first.exits.some((e) => e.key === key));
            }
            await new Promise((r) => setTimeout(r, 300));
          }
          await waitFor('the exits', () => ['a', 'b', 's1', 's2'].every((k) => first.exits.some((e) => e.key === k)));
          first.control.ack('a');
          const fd = (first.control as unknown as { socket: { _handle: { fd: number } } }).socket._handle.fd;
          nativeAddon().sendWithFds(fd, encodeControl('Z', []), []);
          const malformed = await side.next(1);
          await waitFor('the unacked exits again', () => malformed.exits.length >= 1);
          expect(malformed.exits.map((e) => e.key)).not.toContain('a');
          // A hand-over (docs/upgrade.md): `Q`, then the close; the keeper reconnects at once.
          malformed.control.handingOver();
          await new Promise((r) => setTimeout(r, 20));
          malformed.control.close();
          const second = await side.next(2);
          await waitFor('the unacked exits after the hand-over', () => second.exits.length >= 1);
          // Holding processes, it ignores SIGTERM; once every key is released and containerd's
          // connection closed, SIGTERM ends it (and LeakSanitizer looks).
          process.kill(keeper, 'SIGTERM');
          await new Promise((r) => setTimeout(r, 100));
          expect(alive(keeper)).toBe(true);
          ['a', 'b', 's1', 's2', 't', 'u', 'v'].forEach((k) => second.control.release(k));
          await new Promise((r) => setTimeout(r, 100));
          side.close();
          await waitFor('the keeper to close its control connection', () => openFds(keeper) === 6);
          process.kill(keeper, 'SIGTERM');
          await waitFor('the sanitized keeper to leave', () => !alive(keeper));
        } finally {
          side.close();
          fds.forEach((fd) => closeSync(fd));
        }
      },
    },
  ],
  cleanUp() {
    [l, lc].forEach((each) => {
      [...keeperPids(each.address), ...serverPids(each)].forEach((pid) => process.kill(pid, 'SIGKILL'));
      rmSync(each.root, { recursive: true, force: true });
    });
    rmSync(dir, { recursive: true, force: true });
  },
};
