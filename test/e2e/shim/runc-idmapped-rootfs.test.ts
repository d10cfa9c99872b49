import { status as Code } from '@grpc/grpc-js';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nativeAddon } from '../../../src/adapters/shim/os/native-addon';
import { errorOf } from '../support/task-client';
import { types } from '../../../src/adapters/shim/wire/proto/generated/types/mount';
import { RuncBundleFactory, runcTestsEnabled } from '../../support/runc-bundles';
import { RunningShim, startShim } from '../support/shim-process';
import { waitFor } from '../../support/wait-for';

/**
 * A container in a user namespace whose rootfs comes as containerd 2.x's overlayfs snapshotter
 * hands it for a pod with hostUsers: false (docs/cri.md, "User namespaces"): an overlay with
 * uidmap=/gidmap= over root-owned image layers, through `skiff shim serve --runtime runc`. The
 * container sees its mapping and its image as its own root's, runs as the mapped ids on the
 * host, an exec sees the same, and Delete leaves no mount. (The CRI pod itself, under
 * containerd 2.1, is test/vm/userns.test.js.)
 */
const HOST_ID = 100000;
const MAP = `0:${HOST_ID}:65536`;
const SEEN = 'echo $(cat /proc/self/uid_map); id -u; stat -c %u:%g /bin/busybox /bin';

/** Whether this kernel makes an idmapped mount (the adapter test, rootfs-idmap.test.ts, says why not). */
function kernelIdmaps(): boolean {
  const addon = nativeAddon();
  const dir = mkdtempSync(join(tmpdir(), 'skiff-idmap-probe-'));
  try {
    const fd = addon.userNamespace(`0 ${HOST_ID} 65536\n`, `0 ${HOST_ID} 65536\n`);
    try {
      addon.idmapMount(dir, dir, fd, false, true);
      addon.unmount(dir, 0);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (runcTestsEnabled())
  describe('an idmapped overlay rootfs (uidmap=/gidmap=) under the runc runtime', () => {
    let shim: RunningShim;
    let bundles: RuncBundleFactory;

    beforeAll(async () => {
      bundles = new RuncBundleFactory();
      // The container's root (host id 100000) must reach its bundle's rootfs, as on a node (/run/containerd is 0711).
      chmodSync(bundles.root, 0o711);
      shim = await startShim('runc');
    });
    afterAll(async () => {
      await shim?.stop();
      bundles?.cleanup();
    });

    function userBundle(): { dir: string; rootfs: types.Mount } {
      const dir = bundles.make(['sh', '-c', `${SEEN}; exec sleep 1000`], { ownRootfs: true, pidNamespace: true });
      chmodSync(dir, 0o711);
      const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
      const mapping = [{ containerID: 0, hostID: HOST_ID, size: 65536 }];
      config.linux.namespaces.push({ type: 'user' });
      config.linux.uidMappings = mapping;
      config.linux.gidMappings = mapping;
      writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
      const layer = join(dir, 'layer');
      for (const sub of ['fs', 'work']) mkdirSync(join(layer, sub), { recursive: true });
      const rootfs = new types.Mount({
        type: 'overlay',
        source: 'overlay',
        options: [
          `uidmap=${MAP}`,
          `gidmap=${MAP}`,
          'index=off',
          `workdir=${layer}/work`,
          `upperdir=${layer}/fs`,
          `lowerdir=${bundles.rootfs}`,
        ],
      });
      return { dir, rootfs };
    }

    if (!kernelIdmaps())
      it('fails the Create alone, in one line naming the mount and what to do (this kernel makes no idmapped mount)', async () => {
        const { dir, rootfs } = userBundle();
        const error = await errorOf(shim.client.create({ id: 'unmappable', bundle: dir, rootfs: [rootfs] }));
        expect(error.code).toBe(Code.FAILED_PRECONDITION);
        expect(error.details).toMatch(/^task "unmappable": rootfs mount "overlay" of "overlay": .*hostUsers: true$/);
        expect(error.details).not.toContain('\n');
      });
    else
      it("runs in its user namespace with the image as its root's inside and the mapped ids' on the host", async () => {
        const { dir, rootfs } = userBundle();
        const out = join(shim.dir, 'idmapped.out');
        const { pid } = await shim.client.create({
          id: 'idmapped',
          bundle: dir,
          stdout: out,
          stderr: out,
          rootfs: [rootfs],
        });
        await shim.client.start('idmapped');
        const expected = `0 ${HOST_ID} 65536\n0\n0:0\n0:0\n`;
        await waitFor('the container output', () => readFileSync(out, 'utf8').split('\n').length > 4);
        expect(readFileSync(out, 'utf8')).toBe(expected);
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        expect(/^Uid:\s+(\d+)/m.exec(status)?.[1]).toBe(String(HOST_ID));

        const execOut = join(shim.dir, 'idmapped-exec.out');
        await shim.client.exec(
          'idmapped',
          'e1',
          { args: ['sh', '-c', SEEN], env: ['PATH=/bin'], cwd: '/' },
          { stdout: execOut, stderr: execOut },
        );
        await shim.client.start('idmapped', 'e1');
        expect((await shim.client.wait('idmapped', 'e1')).exit_status).toBe(0);
        expect(readFileSync(execOut, 'utf8')).toBe(expected);

        await shim.client.kill('idmapped', 9);
        await shim.client.wait('idmapped');
        await shim.client.delete('idmapped');
        const mounts = readFileSync('/proc/self/mountinfo', 'utf8')
          .split('\n')
          .map((line) => line.split(' ')[4] ?? '');
        expect(mounts.filter((at) => at.startsWith(dir))).toEqual([]);
      });
  });
