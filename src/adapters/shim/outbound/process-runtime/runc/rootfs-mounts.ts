import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { InternalError, InvalidArgumentError } from '../../../../../domain/shared/errors';
import { RootfsMount } from '../../../../../application/shim/ports/process-runtime.port';
import { runCommand } from '../../../helpers/run-command';
import { trimMessage } from './runc-log';

/**
 * The mounts of CreateTaskRequest.rootfs, stacked in order onto <bundle>/rootfs before
 * `runc create` (containerd's mount.All) and taken off in reverse at Delete. mount(8)
 * parses the options (bind, rbind, ro, overlay's lowerdir=..., ...).
 */
export class RootfsMounts {
  private mounted = 0;

  private constructor(private readonly target: string) {}

  static async mount(mounts: readonly RootfsMount[], bundle: string, subject: string): Promise<RootfsMounts> {
    const target = join(bundle, 'rootfs');
    const stack = new RootfsMounts(target);
    if (mounts.length === 0) return stack;
    mkdirSync(target, { recursive: true });
    try {
      for (const m of mounts) await stack.mountOne(m, subject);
    } catch (err) {
      await stack.unmount().catch(() => undefined);
      throw err;
    }
    return stack;
  }

  /** Unmounts what was mounted, newest first; a busy mount is detached lazily so none is left behind. */
  async unmount(): Promise<void> {
    while (this.mounted > 0) {
      let result = await runCommand('umount', [this.target]);
      if (result.code !== 0) result = await runCommand('umount', ['--lazy', this.target]);
      if (result.code !== 0) {
        throw new InternalError(`cannot unmount ${this.target}: ${trimMessage(result.stderr)}`, 'ROOTFS.UMOUNT');
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
    const options = m.options.length > 0 ? ['-o', m.options.join(',')] : [];
    const result = await runCommand('mount', ['-t', m.type, ...options, '--', m.source, this.target]);
    if (result.code !== 0) {
      throw new InvalidArgumentError(
        `${what} failed: ${trimMessage(result.stderr.split('\n')[0] ?? '')}`,
        'ROOTFS.MOUNT',
      );
    }
    this.mounted++;
  }
}
