import { closeSync, constants, mkdirSync, openSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { FailedPreconditionError } from '../../../../domain/shared/errors';
import type { PodFiles } from '../../../../domain/shim/pod-files';
import type { SandboxFiles } from '../../../../application/shim/ports/sandbox-files.port';
import { writeWhole } from '../../../shared/helpers/replace-file';
import { nativeAddon } from '../../os/native-addon';
import { MNT_DETACH } from '../process-runtime/runc/mount-options';
import { SANDBOXES_DIR } from './bundle-sandbox-journal';

/** containerd's CRI plugin's own dirs, under containerd's root and state (plugins/cri/runtime/plugin.go). */
const CRI_DIR = 'io.containerd.grpc.v1.cri';
const MS_NOSUID = 0x2;
const MS_NODEV = 0x4;
const MS_NOEXEC = 0x8;
/** containerd's defaultShmSize (internal/cri/server/podsandbox/helpers_linux.go): 64 MiB. */
const SHM_DATA = `mode=1777,size=${64 * 1024 * 1024}`;
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;

/**
 * The pod's files at CRI's paths (internal/cri/server/helpers.go, v2.3.4): hostname, hosts and
 * resolv.conf in `<containerd root>/io.containerd.grpc.v1.cri/sandboxes/<id>`, the /dev/shm
 * tmpfs at `<containerd state>/io.containerd.grpc.v1.cri/sandboxes/<id>/shm`. CRI mounts each
 * one it finds into every container of the pod, and removes none in this mode: ShutdownSandbox
 * does (and `delete`, after a dead keeper: native/containerd-shim/delete-sandbox.c). containerd's
 * root is where the sandbox bundle's `work` link points: `<root>/<controller>/<ns>/<id>`.
 */
export class CriSandboxFiles implements SandboxFiles {
  /** `containerdState`: containerd's state dir, two above a serving process's state dir. */
  constructor(private readonly containerdState: string) {}

  static ofStateDir(stateDir: string): CriSandboxFiles {
    return new CriSandboxFiles(join(stateDir, '..', '..'));
  }

  make(id: string, bundle: string, files: PodFiles): void {
    const dir = this.rootDir(id, bundle);
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    writeFile(join(dir, 'hostname'), `${files.hostname ?? hostname()}\n`);
    writeFile(join(dir, 'hosts'), readFileSync('/etc/hosts', 'utf8'));
    writeFile(join(dir, 'resolv.conf'), files.resolvConf ?? readFileSync('/etc/resolv.conf', 'utf8'));
    if (!files.ownShm) return;
    const shm = this.shmDir(id);
    mkdirSync(shm, { recursive: true, mode: 0o700 });
    nativeAddon().mount('shm', shm, 'tmpfs', MS_NOEXEC | MS_NOSUID | MS_NODEV, SHM_DATA);
  }

  remove(id: string, bundle: string): void {
    try {
      nativeAddon().unmount(this.shmDir(id), MNT_DETACH);
    } catch {
      // Not mounted (a pod of the node's IPC), or gone already.
    }
    rmSync(dirname(this.shmDir(id)), { recursive: true, force: true });
    let root: string | undefined;
    try {
      root = this.rootDir(id, bundle);
    } catch {
      return; // the bundle went first: containerd's `delete` ran, and removed them (delete-sandbox.c)
    }
    rmSync(root, { recursive: true, force: true });
  }

  private shmDir(id: string): string {
    return join(this.containerdState, CRI_DIR, 'sandboxes', id, 'shm');
  }

  private rootDir(id: string, bundle: string): string {
    const work = readlinkSync(join(bundle, 'work'));
    const controller = dirname(dirname(work));
    if (basename(controller) !== SANDBOXES_DIR || basename(work) !== id)
      throw new FailedPreconditionError(
        `sandbox ${id}: its bundle's work link points at ${work}, not under containerd's ${SANDBOXES_DIR}`,
        'SANDBOX.BUNDLE',
      );
    return join(dirname(controller), CRI_DIR, 'sandboxes', id);
  }
}

/** The whole text, never through a link (containerd's root is root's, but a file skiff writes is never a link's target). */
function writeFile(path: string, text: string): void {
  const fd = openSync(path, WRITE_FLAGS, 0o644);
  try {
    writeWhole(fd, Buffer.from(text));
  } finally {
    closeSync(fd);
  }
}
