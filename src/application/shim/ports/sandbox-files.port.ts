import type { ServiceIdentifier } from 'inversify';
import type { PodFiles } from '../../../domain/shim/pod-files';

export const SANDBOX_FILES: ServiceIdentifier<SandboxFiles> = Symbol('SandboxFiles');

/**
 * The files a pod's containers share (/etc/hostname, /etc/hosts, /etc/resolv.conf, /dev/shm),
 * made where containerd's CRI mounts them from into each container (pod-files.ts).
 */
export interface SandboxFiles {
  make(id: string, bundle: string, files: PodFiles): void;
  /** Removes them (a /dev/shm unmounted first); what is gone already is no fault. */
  remove(id: string, bundle: string): void;
}
