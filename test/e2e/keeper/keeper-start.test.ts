import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { TtrpcTaskClient } from '../../../src/adapters/shim/outbound/task-client/ttrpc-task-client';
import { FailedPreconditionError } from '../../../src/domain/shared/errors';
import { LoggingRunc, runcStatus } from '../../support/logging-runc';
import { runcTestsEnabled } from '../../support/runc-bundles';
import { BUILT_SHIM, groupServers, keeperPids, layout, start } from './keeper-support';

const { makeBusyboxBundle } = require('../../../scripts/busybox-bundle.js') as {
  makeBusyboxBundle(dir: string, args: string[], options?: object): string;
};

/**
 * Start behind a pod keeper with runc's own containers (docs/runtimes.md, "Start without a
 * runc process"): the keeper does `runc start`'s handshake (`S`), and a Start whose init died
 * first gets runc's answer, FAILED_PRECONDITION. containerd is played by this test, with
 * NOTIFY_SOCKET in the environment it gives the shim, as a containerd started by systemd has.
 */
const NS = `kstart${process.pid}`;

if (runcTestsEnabled())
  describe('Start behind a pod keeper, with runc', () => {
    const l = layout(NS);
    const runc = new LoggingRunc();
    const clients: TtrpcTaskClient[] = [];
    afterAll(() => {
      clients.forEach((c) => c.close());
      for (const pid of [...keeperPids(l.address), ...groupServers(l).map((s) => s.pid)]) process.kill(pid, 'SIGKILL');
      rmSync(l.root, { recursive: true, force: true });
      runc.remove();
    });

    /** `start` and Create of a busybox `sleep` with its own pid namespace, as containerd would. */
    async function created(id: string) {
      const env = { PATH: `${runc.bin}:${process.env.PATH ?? ''}`, NOTIFY_SOCKET: join(l.root, 'notify.sock') };
      const started = start(BUILT_SHIM, l, NS, id, env, {}, (bundle) =>
        makeBusyboxBundle(bundle, ['sleep', '1000'], { pidNamespace: true }),
      );
      expect(started.stderr).toBe('');
      const client = new TtrpcTaskClient(started.socket);
      clients.push(client);
      const io = {
        stdin: '',
        stdout: '',
        stderr: '',
        terminal: false,
        rootfs: [],
        checkpoint: '',
        parentCheckpoint: '',
      };
      const { pid } = await client.create({ id, bundle: started.bundle, ...io });
      return { client, pid, ref: { id, execId: '' } };
    }
    const runcRoot = () => join(l.state, 'skiff', NS, 'runc');

    it("starts the container without runc start, runc's environment as containerd's runc shim gives it", async () => {
      const { client, pid, ref } = await created('plain');
      expect(runcStatus(runcRoot(), 'plain')).toBe('created');
      expect((await client.start(ref)).pid).toBe(pid);
      expect(runcStatus(runcRoot(), 'plain')).toBe('running');
      expect((await client.state(ref)).status).toBe('running');
      await client.kill({ ...ref, signal: 9, all: false });
      expect((await client.wait(ref)).exitStatus).toBe(137);
      await client.delete(ref);
      expect(runc.callsFor('plain')).toEqual(['create', 'kill', 'delete']);
      expect(runc.environments()).toEqual(new Set(['GOMAXPROCS=4 NOTIFY_SOCKET=unset']));
    });

    it("answers a Start racing its init's SIGKILL with FAILED_PRECONDITION or a start whose exit is 137, never a hang", async () => {
      for (let round = 0; round < 5; round++) {
        const id = `racing${round}`;
        const { client, pid, ref } = await created(id);
        process.kill(pid, 'SIGKILL');
        const outcome = await client.start(ref).then(
          () => 'started' as const,
          (err: unknown) => err,
        );
        if (outcome !== 'started') {
          expect(outcome).toBeInstanceOf(FailedPreconditionError);
          expect((outcome as Error).message).toMatch(/container process is already dead|stopped/);
        }
        expect((await client.wait(ref)).exitStatus).toBe(137);
        await client.delete(ref);
        expect(runc.callsFor(id)).not.toContain('start');
      }
    });
  });
