import { closeSync } from 'node:fs';
import { DomainError, FailedPreconditionError, InvalidArgumentError } from '../../../../../domain/shared/errors';
import { idMapText, RootfsIdmap } from '../../../../../domain/shim/rootfs-idmap';
import { nativeAddon } from '../../../os/native-addon';

/**
 * What to do when this node cannot make a mount idmapped: containerd's own answers for a
 * kernel without idmapped mounts (its overlayfs snapshotter's `slow_chown`, which chowns the
 * snapshot instead and gives no uidmap=; docs/cri.md, "User namespaces").
 */
const WHAT_TO_DO =
  "use Linux 5.19 or later, or set slow_chown = true in containerd's overlayfs snapshotter section (it chowns the snapshot instead), or run the pod with hostUsers: true";

/**
 * Runs `use` with a user namespace holding the mount's mapping (native/addon/idmap.c), and
 * closes it after: the idmapped mounts made with it keep the namespace alive themselves, so
 * nothing but those mounts outlives the Create.
 */
export function withUserNamespace<T>(idmap: RootfsIdmap, what: string, use: (usernsFd: number) => T): T {
  let fd: number;
  try {
    fd = nativeAddon().userNamespace(idMapText(idmap.uidMappings), idMapText(idmap.gidMappings));
  } catch (err) {
    const { code, message } = err as NodeJS.ErrnoException;
    // The ranges were checked already (splitIdmapOptions): the kernel's refusal is the host's,
    // e.g. host ids not mapped for the shim's own user namespace.
    if (code === 'EINVAL' || code === 'EPERM')
      throw new InvalidArgumentError(
        `${what}: the kernel refused the id mapping ${idmap.text} (${message}); the pod's mapping must use host ids the shim's user maps`,
        'ROOTFS.IDMAP_REFUSED',
      );
    const limit = code === 'ENOSPC' ? ' (raise the sysctl user.max_user_namespaces)' : '';
    throw new FailedPreconditionError(
      `${what}: cannot make a user namespace for ${idmap.text} (${message})${limit}`,
      'ROOTFS.USERNS',
    );
  }
  try {
    return use(fd);
  } finally {
    closeSync(fd);
  }
}

/** `source` made idmapped onto `target` (one mount), or one error naming the mount and what to do. */
export function idmapMount(
  source: string,
  target: string,
  usernsFd: number,
  what: string,
  options: { recursive: boolean; readOnly: boolean },
): void {
  try {
    nativeAddon().idmapMount(source, target, usernsFd, options.recursive, options.readOnly);
  } catch (err) {
    throw idmapError(err, source, what);
  }
}

function idmapError(err: unknown, source: string, what: string): DomainError {
  const { code, message } = err as NodeJS.ErrnoException;
  if (code === 'ENOSYS')
    return new FailedPreconditionError(
      `${what}: this kernel has no idmapped mounts (${message}); ${WHAT_TO_DO}`,
      'ROOTFS.IDMAP_UNSUPPORTED',
    );
  if (code === 'EINVAL' || code === 'EOPNOTSUPP')
    return new FailedPreconditionError(
      `${what}: the file system of ${source} cannot be idmapped on this kernel (${message}); ${WHAT_TO_DO}`,
      'ROOTFS.IDMAP_UNSUPPORTED',
    );
  return new FailedPreconditionError(`${what}: cannot make ${source} idmapped (${message})`, 'ROOTFS.IDMAP');
}

/** An overlay mount over idmapped lower directories that failed: the kernel's reason and, for EINVAL, the likely one. */
export function idmappedOverlayError(err: unknown, what: string): DomainError {
  const { code, message } = err as NodeJS.ErrnoException;
  if (code === 'EINVAL')
    return new FailedPreconditionError(
      `${what} failed over idmapped lower directories (${message}; overlayfs takes them from Linux 5.19); ${WHAT_TO_DO}`,
      'ROOTFS.IDMAP_UNSUPPORTED',
    );
  return new InvalidArgumentError(`${what} failed: ${message}`, 'ROOTFS.MOUNT');
}
