import { status as Code, ServiceError } from '@grpc/grpc-js';
import { join } from 'node:path';
import { LoggingRunc, runcStatus } from '../../support/logging-runc';
import { RuncBundleFactory, runcTestsEnabled } from '../../support/runc-bundles';
import { RunningShim, startShim } from '../support/shim-process';

/**
 * Start of a runc task served without a pod keeper (`skiff shim serve --runtime runc`): runc's own
 * `start` (behind a keeper the keeper does its handshake: test/e2e/containerd/skiff-start.test.ts).
 * A `runc` on the shim's PATH logs each subcommand before it runs the real one.
 */
if (runcTestsEnabled())
  describe('Start on the runc runtime', () => {
    let shim: RunningShim;
    let bundles: RuncBundleFactory;
    let runc: LoggingRunc;
    let n = 0;

    beforeAll(async () => {
      bundles = new RuncBundleFactory();
      runc = new LoggingRunc();
      // As under a containerd started by systemd: NOTIFY_SOCKET is set, and runc must not see it.
      shim = await startShim('runc', [], undefined, {
        PATH: `${runc.bin}:${process.env.PATH ?? ''}`,
        NOTIFY_SOCKET: join(runc.bin, 'notify.sock'),
      });
    });
    afterAll(async () => {
      await shim.stop();
      bundles.cleanup();
      runc.remove();
    });

    it("runs runc start: without a pod keeper no handshake of the serving process's own would outlive it", async () => {
      const id = `plain-${n++}`;
      await shim.client.create({ id, bundle: bundles.make(['sleep', '1000'], { pidNamespace: true }) });
      await shim.client.start(id);
      expect(runcStatus(join(shim.stateDir, 'runc'), id)).toBe('running');
      await shim.client.kill(id, 9);
      expect((await shim.client.wait(id)).exit_status).toBe(137);
      await shim.client.delete(id);
      expect(runc.callsFor(id)).toEqual(['create', 'start', 'kill', 'delete']);
      expect(runc.environments()).toEqual(new Set(['GOMAXPROCS=4 NOTIFY_SOCKET=unset']));
    });

    it("answers a Start racing its init's SIGKILL with FAILED_PRECONDITION or a start whose exit is 137, never a hang", async () => {
      for (let round = 0; round < 5; round++) {
        const id = `racing-${n++}`;
        const { pid } = await shim.client.create({
          id,
          bundle: bundles.make(['sleep', '1000'], { pidNamespace: true }),
        });
        process.kill(pid, 'SIGKILL');
        const outcome: 'started' | ServiceError = await shim.client.start(id).then(
          () => 'started' as const,
          (err: ServiceError) => err,
        );
        if (outcome !== 'started') {
          expect(outcome.code).toBe(Code.FAILED_PRECONDITION);
          expect(outcome.details).toMatch(/container process is already dead|stopped/);
        }
        expect((await shim.client.wait(id)).exit_status).toBe(137);
        await shim.client.delete(id);
      }
    });
  });
