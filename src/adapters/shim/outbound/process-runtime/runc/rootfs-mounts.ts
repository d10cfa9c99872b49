import { join } from 'node:path';
import { InternalError, InvalidArgumentError } from '../../../../../domain/shared/errors';
import { RootfsMount } from '../../../../../application/shim/ports/process-runtime.port';
import { nativeAddon } from '../../../os/native-addon';
import { MNT_DETACH, parseMountOptions } from './mount-options';
import { makeDirs } from '../../../../shared/helpers/make-dirs';

const MS_BIND = 0x1000;
const MS_REC = 0x4000;
const MS_REMOUNT = 0x20;

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
    stack.mounted = mounts.length;
    return stack;
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
    const { flags, data } = parseMountOptions(m.options);
    const addon = nativeAddon();
    try {
      addon.mount(m.source, this.target, m.type, flags, data);
      this.mounted++;
      // A bind mount takes its other flags (ro, nosuid, ...) only on a remount.
      if ((flags & MS_BIND) !== 0 && (flags & ~(MS_BIND | MS_REC)) !== 0)
        addon.mount('', this.target, '', flags | MS_REMOUNT, data);
    } catch (err) {
      throw new InvalidArgumentError(`${what} failed: ${(err as Error).message}`, 'ROOTFS.MOUNT');
    }
  }
}
