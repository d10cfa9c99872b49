import { mkdtempSync, rmdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DomainError, InternalError, InvalidArgumentError } from '../../../../../domain/shared/errors';
import { idmappedLowers, splitIdmapOptions } from '../../../../../domain/shim/rootfs-idmap';
import { RootfsMount } from '../../../../../application/shim/ports/process-runtime.port';
import { nativeAddon } from '../../../os/native-addon';
import { MNT_DETACH, parseMountOptions } from './mount-options';
import { idmapMount, idmappedOverlayError, withUserNamespace } from './idmapped-mounts';
import { makeDirs } from '../../../../shared/helpers/make-dirs';

const MS_BIND = 0x1000;
const MS_REC = 0x4000;
const MS_REMOUNT = 0x20;
const MS_RDONLY = 0x1;
/** More mounts than any Create stacks on a rootfs, and what `delete` unmounts at most (16). */
const MOST_STACKED = 16;

/**
 * How many mounts one rootfs mount stacks on the target: two for an idmapped mount of a type
 * other than overlay and bind (mounted, then a clone of it idmapped on top, as containerd's
 * runc shim does), one otherwise.
 */
function stackedMounts(m: RootfsMount): number {
  const split = splitIdmapOptions(m.options);
  if (split.problem !== undefined || split.idmap === undefined || m.type === 'overlay') return 1;
  return (parseMountOptions(split.options).flags & MS_BIND) !== 0 ? 1 : 2;
}

/**
 * The mounts of CreateTaskRequest.rootfs, stacked in order onto <bundle>/rootfs before
 * `runc create` (containerd's mount.All) and taken off in reverse at Delete, with the
 * system calls themselves: a mount(8) process per container cost more than the mount.
 */
export class RootfsMounts {
  private mounted = 0;

  private constructor(private readonly target: string) {}

  static async mount(mounts: readonly RootfsMount[], bundle: string, subject: string): Promise<RootfsMounts> {
    const target = join(bundle, 'rootfs');
    const stack = new RootfsMounts(target);
    if (mounts.length === 0) return stack;
    makeDirs(target, 0o777);
    try {
      for (const m of mounts) await stack.mountOne(m, subject);
    } catch (err) {
      await stack.unmount().catch(() => undefined);
      throw err;
    }
    return stack;
  }

  /** The stack a previous serving process mounted for a task it made: taken off at Delete the same way. */
  static adopted(mounts: readonly RootfsMount[], bundle: string): RootfsMounts {
    const stack = new RootfsMounts(join(bundle, 'rootfs'));
    stack.mounted = mounts.reduce((n, m) => n + stackedMounts(m), 0);
    return stack;
  }

  /**
   * Takes off whatever is mounted on <bundle>/rootfs when nobody recorded how many mounts there
   * are (a Create cut short by a crash), as `delete` does (native/containerd-shim): detached
   * lazily until the path is no mount point, at most `MOST_STACKED` times.
   */
  static unmountAllAt(bundle: string): void {
    const target = join(bundle, 'rootfs');
    for (let i = 0; i < MOST_STACKED; i++) {
      try {
        nativeAddon().unmount(target, MNT_DETACH);
      } catch {
        return;
      }
    }
  }

  /** Unmounts what was mounted, newest first; a busy mount is detached lazily so none is left behind. */
  async unmount(): Promise<void> {
    const addon = nativeAddon();
    while (this.mounted > 0) {
      try {
        addon.unmount(this.target, 0);
      } catch {
        try {
          addon.unmount(this.target, MNT_DETACH);
        } catch (err) {
          throw new InternalError(`cannot unmount ${this.target}: ${(err as Error).message}`, 'ROOTFS.UMOUNT');
        }
      }
      this.mounted--;
    }
  }

  private async mountOne(m: RootfsMount, subject: string): Promise<void> {
    const what = `${subject}: rootfs mount ${JSON.stringify(m.type)} of ${JSON.stringify(m.source)}`;
    if (m.type === '' || m.source === '')
      throw new InvalidArgumentError(`${what}: type and source are required`, 'ROOTFS.INVALID');
    if (m.target !== '' && m.target !== '/') {
      throw new InvalidArgumentError(
        `${what}: rootfs mounts go onto the bundle's rootfs; leave target empty`,
        'ROOTFS.TARGET',
      );
    }
    const split = splitIdmapOptions(m.options);
    if (split.problem !== undefined) throw new InvalidArgumentError(`${what}: ${split.problem}`, 'ROOTFS.IDMAP');
    if (split.idmap !== undefined) {
      withUserNamespace(split.idmap, what, (usernsFd) => this.mountIdmapped(m, split.options, usernsFd, what));
      return;
    }
    try {
      this.mountPlain(m.source, m.type, split.options);
    } catch (err) {
      throw new InvalidArgumentError(`${what} failed: ${(err as Error).message}`, 'ROOTFS.MOUNT');
    }
  }

  /** mount(2) onto the target; a bind mount takes its other flags (ro, nosuid, ...) only on a remount. */
  private mountPlain(source: string, type: string, options: readonly string[]): void {
    const { flags, data } = parseMountOptions(options);
    const addon = nativeAddon();
    addon.mount(source, this.target, type, flags, data);
    this.mounted++;
    this.remountBind(flags, data);
  }

  private remountBind(flags: number, data: string): void {
    if ((flags & MS_BIND) !== 0 && (flags & ~(MS_BIND | MS_REC)) !== 0)
      nativeAddon().mount('', this.target, '', flags | MS_REMOUNT, data);
  }

  /**
   * A mount with uidmap=/gidmap= (docs/cri.md, "User namespaces"), as containerd's runc shim
   * makes it (core/mount/mount_linux.go): an overlay over its lower directories idmapped (one
   * read-only idmapped mount of the directory they share, in the bundle, taken off again as soon
   * as the overlay holds them); a bind mount as an idmapped clone of its source; any other type
   * mounted, then an idmapped clone of it on top.
   */
  private mountIdmapped(m: RootfsMount, options: readonly string[], usernsFd: number, what: string): void {
    const fail = (err: unknown) =>
      err instanceof DomainError
        ? err
        : new InvalidArgumentError(`${what} failed: ${(err as Error).message}`, 'ROOTFS.MOUNT');
    if (m.type === 'overlay') {
      const lowers = idmappedLowers(options);
      if ('problem' in lowers) throw new InvalidArgumentError(`${what}: ${lowers.problem}`, 'ROOTFS.IDMAP');
      const at = mkdtempSync(join(dirname(this.target), '.idmapped-lowers-'));
      try {
        idmapMount(lowers.commonDir, at, usernsFd, what, { recursive: false, readOnly: true });
        try {
          this.mountPlain(m.source, m.type, lowers.options(at));
        } catch (err) {
          throw idmappedOverlayError(err, what);
        } finally {
          // overlayfs holds private clones of its layers: the idmapped directory goes at once.
          unmountOrDetach(at);
        }
      } finally {
        removeDir(at);
      }
      return;
    }
    const { flags, data } = parseMountOptions(options);
    try {
      if ((flags & MS_BIND) !== 0) {
        const readOnly = (flags & MS_RDONLY) !== 0;
        idmapMount(m.source, this.target, usernsFd, what, { recursive: (flags & MS_REC) !== 0, readOnly });
        this.mounted++;
        this.remountBind(flags, data);
      } else {
        this.mountPlain(m.source, m.type, options);
        idmapMount(this.target, this.target, usernsFd, what, { recursive: false, readOnly: false });
        this.mounted++;
      }
    } catch (err) {
      throw fail(err);
    }
  }
}

/** umount2, or a lazy detach when something holds the mount for a moment. */
function unmountOrDetach(target: string): void {
  const addon = nativeAddon();
  try {
    addon.unmount(target, 0);
  } catch {
    try {
      addon.unmount(target, MNT_DETACH);
    } catch (err) {
      throw new InternalError(`cannot unmount ${target}: ${(err as Error).message}`, 'ROOTFS.UMOUNT');
    }
  }
}

function removeDir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch (err) {
    throw new InternalError(`cannot remove ${dir}: ${(err as Error).message}`, 'ROOTFS.UMOUNT');
  }
}
