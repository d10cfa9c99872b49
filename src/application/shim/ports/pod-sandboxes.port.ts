import type { ServiceIdentifier } from 'inversify';

export const POD_SANDBOXES: ServiceIdentifier<PodSandboxes> = Symbol('PodSandboxes');

/**
 * The task service's view of the sandboxes served beside it (docs/sandbox-api.md, §5): containerd
 * asks a sandbox's shim Task.Connect for the sandbox's id when it restarts (loadShimTask), and a
 * Shutdown after a pod's last container leaves the process serving while a sandbox lives.
 */
export interface PodSandboxes {
  /** The host pid of a live sandbox's process; undefined for an id that is no live sandbox. */
  pidOf(id: string): number | undefined;
  /** How many sandboxes this process serves. */
  readonly count: number;
}
