import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  BUSYBOX_IMAGE,
  containerdTestsEnabled,
  PrivateContainerd,
  startContainerd,
  uniqueNamespace,
} from '../../support/containerd';
import { LoggingRunc, runcStatus } from '../../support/logging-runc';
import { ok, waitForStatus } from './support';
import { SKIFF } from './skiff-support';

/**
 * Start behind a pod keeper (docs/runtimes.md, "Start without a runc process"): the keeper does
 * runc's start handshake on the container's exec fifo, and runc's own `start` runs only where it
 * would do more. containerd finds `runc` on its PATH (both shims do) in a directory whose `runc`
 * logs each call before it runs the real one.
 */
const RUNC_SHIM = ['--runtime', 'io.containerd.runc.v2'];
const busybox = require('../../../scripts/busybox-bundle.js') as { makeBusyboxRootfs(dir: string): string };

if (containerdTestsEnabled())
  describe('Start through skiff under containerd', () => {
    let env: PrivateContainerd;
    let ns: string;
    let runc: LoggingRunc;
    let n = 0;

    beforeAll(async () => {
      runc = new LoggingRunc();
      env = await startContainerd({ shimDirs: [resolve(__dirname, '../../../bin'), runc.bin] });
      ns = uniqueNamespace('start');
      await env.importImages(ns);
    });
    afterAll(async () => {
      await env?.stop();
      runc.remove();
    });

    const runcState = (id: string) => runcStatus(join(env.paths.state, 'skiff', ns, 'runc'), id);

    it("runs no runc start where containerd's runc shim runs one, and the container runs as runc reads it", async () => {
      const id = `plain${n++}`;
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, id, 'sleep', '1000']);
      const { pid } = await waitForStatus(env, ns, id, 'RUNNING');
      expect(readFileSync(`/proc/${pid}/comm`, 'utf8').trim()).toBe('sleep');
      expect(runcState(id)).toBe('running');
      expect(runc.callsFor(id)).toEqual(['create']);

      const baseline = `baseline${n++}`;
      await ok(env, ns, ['run', '-d', ...RUNC_SHIM, BUSYBOX_IMAGE, baseline, 'sleep', '1000']);
      await waitForStatus(env, ns, baseline, 'RUNNING');
      expect(runc.callsFor(baseline)).toEqual(['create', 'start']);

      for (const done of [id, baseline]) {
        await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', done]);
        await waitForStatus(env, ns, done, 'STOPPED');
        await ok(env, ns, ['tasks', 'rm', done]);
        await ok(env, ns, ['containers', 'rm', done]);
      }
    });

    it('has runc start a spec with poststart hooks, which runc after 1.4 runs at start', async () => {
      const id = `hooked${n++}`;
      const marker = join(runc.bin, `${id}.poststart`);
      const spec = JSON.parse((await ok(env, ns, ['oci', 'spec'])).stdout) as Record<string, unknown>;
      const proc = spec.process as Record<string, unknown>;
      proc.args = ['sleep', '1000'];
      proc.env = ['PATH=/bin'];
      proc.terminal = false;
      spec.hooks = { poststart: [{ path: '/bin/sh', args: ['sh', '-c', `echo ran > ${marker}`] }] };
      // With a spec file ctr takes no image: the root is a busybox tree of its own.
      spec.root = { path: busybox.makeBusyboxRootfs(join(runc.bin, `${id}-rootfs`)), readonly: true };
      const config = join(runc.bin, `${id}.json`);
      writeFileSync(config, JSON.stringify(spec));
      await ok(env, ns, ['run', '-d', ...SKIFF, '--config', config, id]);
      await waitForStatus(env, ns, id, 'RUNNING');
      expect(readFileSync(marker, 'utf8')).toBe('ran\n');
      expect(runc.callsFor(id)).toEqual(['create', 'start']);
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', id]);
      await waitForStatus(env, ns, id, 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', id]);
      await ok(env, ns, ['containers', 'rm', id]);
    });
  });
