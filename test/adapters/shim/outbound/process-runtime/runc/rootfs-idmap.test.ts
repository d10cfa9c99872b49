import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RootfsMount } from '../../../../../../src/application/shim/ports/process-runtime.port';
import { RootfsMounts } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/rootfs-mounts';
import { nativeAddon } from '../../../../../../src/adapters/shim/os/native-addon';

/**
 * Rootfs mounts with uidmap=/gidmap= (docs/cri.md, "User namespaces"): the addon's user
 * namespace and idmapped mount (native/addon/idmap.c) and RootfsMounts' overlay, bind and
 * other mounts made idmapped, for real, on this machine's kernel; and every descriptor, helper
 * process and temporary mount released. Needs root and a kernel with idmapped mounts (5.12;
 * overlayfs over idmapped layers 5.19, tmpfs 6.3).
 */
const MAP = ['uidmap=0:100000:65536', 'gidmap=0:100000:65536'];
const addon = nativeAddon();

const fds = () => readdirSync('/proc/self/fd').length;
/** This process's children (zombies included), from every thread's list. */
const children = () =>
  readdirSync('/proc/self/task')
    .flatMap((t) => readFileSync(`/proc/self/task/${t}/children`, 'utf8').trim().split(' '))
    .filter(Boolean)
    .sort();
const mountedAt = (dir: string) =>
  readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((line) => line.split(' ')[4] === dir).length;
const leftovers = () =>
  readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((line) => (line.split(' ')[4] ?? '').includes('.idmapped-lowers'));

/** Why idmapped rootfs mounts cannot be tried here, or undefined when they can. */
function unsupported(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root (user namespaces with other ids, mounts)';
  const dir = mkdtempSync(join(tmpdir(), 'skiff-idmap-probe-'));
  mkdirSync(join(dir, 'a'));
  mkdirSync(join(dir, 'b'));
  try {
    const fd = addon.userNamespace('0 100000 65536\n', '0 100000 65536\n');
    try {
      addon.idmapMount(join(dir, 'a'), join(dir, 'b'), fd, false, true);
      addon.unmount(join(dir, 'b'), 0);
    } finally {
      require('node:fs').closeSync(fd);
    }
    return undefined;
  } catch (err) {
    return `this kernel (${require('node:os').release()}) makes no idmapped mount: ${(err as Error).message}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A bundle with a rootfs/ and two image layers owned by root: /bin/sh in one, /etc/os in the other. */
function fixture() {
  const root = mkdtempSync(join(tmpdir(), 'skiff-idmap-'));
  const snapshots = join(root, 'snapshots');
  for (const [id, file] of [
    ['1', 'bin/sh'],
    ['2', 'etc/os'],
  ]) {
    mkdirSync(join(snapshots, id, 'fs', file, '..'), { recursive: true });
    writeFileSync(join(snapshots, id, 'fs', file), id);
  }
  mkdirSync(join(snapshots, '3', 'fs'), { recursive: true });
  mkdirSync(join(snapshots, '3', 'work'), { recursive: true });
  const bundle = join(root, 'bundle');
  mkdirSync(bundle);
  const overlay = (lowerdir: string): RootfsMount => ({
    type: 'overlay',
    source: 'overlay',
    target: '',
    options: [...MAP, 'index=off', `workdir=${snapshots}/3/work`, `upperdir=${snapshots}/3/fs`, `lowerdir=${lowerdir}`],
  });
  return { root, snapshots, bundle, rootfs: join(bundle, 'rootfs'), overlay };
}

const reason = unsupported();
if (reason !== undefined) process.stderr.write(`rootfs-idmap: real idmapped mounts not tried: ${reason}\n`);

describe('rootfs mounts with uidmap=/gidmap= refused before any system call', () => {
  it('names the mount and the problem: one map without the other, a range the kernel refuses', async () => {
    const { root, bundle, rootfs } = fixture();
    try {
      const bind = (options: string[]): RootfsMount => ({ type: 'bind', source: root, target: '', options });
      await expect(RootfsMounts.mount([bind(['rbind', 'uidmap=0:1:1'])], bundle, 'task "t"')).rejects.toMatchObject({
        kind: 'InvalidArgument',
        message: `task "t": rootfs mount "bind" of ${JSON.stringify(root)}: uidmap= without gidmap=: an idmapped mount maps both (containerd's snapshotters give both)`,
      });
      await expect(
        RootfsMounts.mount([bind(['rbind', 'uidmap=0:100000:0', 'gidmap=0:100000:1'])], bundle, 'task "t"'),
      ).rejects.toMatchObject({
        kind: 'InvalidArgument',
        message: expect.stringMatching(/uidmap\[0\] .* maps no id$/),
      });
      expect(mountedAt(rootfs)).toBe(0);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

if (reason === undefined)
  describe('idmapped rootfs mounts on this kernel', () => {
    let root: string | undefined;
    afterEach(() => {
      if (root !== undefined) rmSync(root, { recursive: true, force: true });
      root = undefined;
    });

    it("the addon: a user namespace's descriptor, an idmapped read-only clone, the helper reaped", () => {
      const dir = (root = mkdtempSync(join(tmpdir(), 'skiff-idmap-')));
      mkdirSync(join(dir, 'src'));
      mkdirSync(join(dir, 'dst'));
      writeFileSync(join(dir, 'src', 'f'), 'x');
      chownSync(join(dir, 'src', 'f'), 1000, 1001);
      const before = fds();
      const kids = children();
      const fd = addon.userNamespace('0 100000 65536\n', '0 200000 65536\n');
      expect(require('node:fs').readlinkSync(`/proc/self/fd/${fd}`)).toMatch(/^user:\[\d+\]$/);
      // The helper that made it is gone and reaped: no zombie child left for the shim's reapers.
      expect(children()).toEqual(kids);
      addon.idmapMount(join(dir, 'src'), join(dir, 'dst'), fd, false, true);
      require('node:fs').closeSync(fd);
      expect(fds()).toBe(before);
      const seen = statSync(join(dir, 'dst', 'f'));
      expect([seen.uid, seen.gid]).toEqual([101000, 201001]);
      expect(() => writeFileSync(join(dir, 'dst', 'g'), 'y')).toThrow(/EROFS/);
      addon.unmount(join(dir, 'dst'), 0);
    });

    it('the addon: a mapping the kernel refuses, and a file system that cannot be idmapped, as errno errors', () => {
      const before = fds();
      const kids = children();
      expect(() => addon.userNamespace('0 100000 10\n5 200000 10\n', '0 100000 1\n')).toThrow(
        expect.objectContaining({ code: 'EINVAL', message: 'uid_map: Invalid argument' }),
      );
      const fd = addon.userNamespace('0 100000 65536\n', '0 100000 65536\n');
      const dir = (root = mkdtempSync(join(tmpdir(), 'skiff-idmap-')));
      expect(() => addon.idmapMount('/proc/sys', dir, fd, false, false)).toThrow(
        expect.objectContaining({ code: 'EINVAL', message: 'mount_setattr(MOUNT_ATTR_IDMAP): Invalid argument' }),
      );
      require('node:fs').closeSync(fd);
      expect(fds()).toBe(before);
      expect(children()).toEqual(kids);
      expect(mountedAt(dir)).toBe(0);
    });

    it("an overlay over its lower directories idmapped: the container's root owns the image, one mount, nothing else kept", async () => {
      const f = fixture();
      root = f.root;
      const before = fds();
      const stack = await RootfsMounts.mount(
        [f.overlay(`${f.snapshots}/2/fs:${f.snapshots}/1/fs`)],
        f.bundle,
        'task "t"',
      );
      // The host sees the image's root-owned files as the mapped root's; inside, they are 0:0.
      for (const file of ['bin/sh', 'etc/os']) {
        const seen = statSync(join(f.rootfs, file));
        expect([seen.uid, seen.gid]).toEqual([100000, 100000]);
      }
      expect(readFileSync(join(f.rootfs, 'etc/os'), 'utf8')).toBe('2');
      writeFileSync(join(f.rootfs, 'new'), 'upper');
      expect(readFileSync(join(f.snapshots, '3/fs/new'), 'utf8')).toBe('upper');
      // The on-disk layers are untouched; the temporary idmapped directory is gone already.
      expect(statSync(join(f.snapshots, '1/fs/bin/sh')).uid).toBe(0);
      expect(mountedAt(f.rootfs)).toBe(1);
      expect(leftovers()).toEqual([]);
      expect(readdirSync(f.bundle)).toEqual(['rootfs']);
      expect(fds()).toBe(before);
      await stack.unmount();
      expect(mountedAt(f.rootfs)).toBe(0);
    });

    it('a bind mount as an idmapped clone of its source (ro kept), and a tmpfs idmapped on top of itself', async () => {
      const f = fixture();
      root = f.root;
      const bind: RootfsMount = {
        type: 'bind',
        source: `${f.snapshots}/1/fs`,
        target: '',
        options: [...MAP, 'rbind', 'ro'],
      };
      const binds = await RootfsMounts.mount([bind], f.bundle, 'task "t"');
      expect(statSync(join(f.rootfs, 'bin/sh')).uid).toBe(100000);
      expect(() => writeFileSync(join(f.rootfs, 'x'), 'y')).toThrow(/EROFS/);
      expect(mountedAt(f.rootfs)).toBe(1);
      await binds.unmount();
      expect(mountedAt(f.rootfs)).toBe(0);

      // Another type: mounted, then an idmapped clone on top (two mounts), both taken off by a
      // serving process that adopted the task (it counts them from the request alone).
      const tmpfs: RootfsMount = { type: 'tmpfs', source: 'tmpfs', target: '', options: [...MAP, 'mode=755'] };
      await RootfsMounts.mount([tmpfs], f.bundle, 'task "t"');
      expect(statSync(f.rootfs).uid).toBe(100000);
      expect(mountedAt(f.rootfs)).toBe(2);
      await RootfsMounts.adopted([tmpfs], f.bundle).unmount();
      expect(mountedAt(f.rootfs)).toBe(0);
    });

    it('a failure after the idmapped directory was made leaves no mount, directory or descriptor, in one error', async () => {
      const f = fixture();
      root = f.root;
      const before = fds();
      const kids = children();
      const error = await RootfsMounts.mount(
        [f.overlay(`${f.snapshots}/2/fs:${f.snapshots}/9/fs`)],
        f.bundle,
        'task "t"',
      ).catch((err: Error) => err);
      expect(error).toMatchObject({
        kind: 'InvalidArgument',
        message: expect.stringMatching(/^task "t": rootfs mount "overlay" of "overlay" failed: mount: .*No such file/),
      });
      expect(mountedAt(f.rootfs)).toBe(0);
      expect(leftovers()).toEqual([]);
      expect(readdirSync(f.bundle)).toEqual(['rootfs']);
      expect(fds()).toBe(before);
      expect(children()).toEqual(kids);
    });

    it('a file system the kernel cannot idmap: one error naming the mount and what to do', async () => {
      const f = fixture();
      root = f.root;
      const bind: RootfsMount = { type: 'bind', source: '/proc/sys', target: '', options: [...MAP, 'rbind'] };
      const error = await RootfsMounts.mount([bind], f.bundle, 'task "t"').catch((err: Error) => err);
      expect(error).toMatchObject({
        kind: 'FailedPrecondition',
        message:
          'task "t": rootfs mount "bind" of "/proc/sys": the file system of /proc/sys cannot be idmapped on this kernel (mount_setattr(MOUNT_ATTR_IDMAP): Invalid argument); use Linux 5.19 or later, or set slow_chown = true in containerd\'s overlayfs snapshotter section (it chowns the snapshot instead), or run the pod with hostUsers: true',
      });
      expect(mountedAt(f.rootfs)).toBe(0);
    });
  });
