import { FailedPreconditionError, InvalidArgumentError } from '../shared/errors';
import { ProcessExit } from './exit-status';

/**
 * A pod served through containerd's Sandbox API (`sandboxer = "shim"`, docs/sandbox-api.md): no
 * pause container, but one small process, the sandbox process, that holds the pod's namespaces.
 * Its host pid is what containerd's CRI makes each container's `/proc/<pid>/ns/*` from.
 */

/** CRI's NamespaceMode (cri-api's api.proto): a namespace of the pod's, a container's, the node's, another container's. */
export type NamespaceMode = 'pod' | 'container' | 'node' | 'target';

/** CRI's DNSConfig: resolv.conf's lines (pod-files.ts). */
export interface PodDns {
  readonly servers: readonly string[];
  readonly searches: readonly string[];
  readonly options: readonly string[];
}

/** What a sandbox reads of CRI's PodSandboxConfig (CreateSandbox's options). */
export interface PodSandboxFields {
  readonly hostname: string;
  readonly network: NamespaceMode;
  readonly pid: NamespaceMode;
  readonly ipc: NamespaceMode;
  /** The user namespace's mode; 'node' when the pod asked for none. */
  readonly userns: NamespaceMode;
  readonly sysctls: ReadonlyArray<readonly [string, string]>;
  /** Its DNSConfig; undefined: the node's resolv.conf. */
  readonly dns?: PodDns;
}

/** A pod with none of PodSandboxConfig's options: its own namespaces, no hostname, no sysctls. */
export const NO_POD_FIELDS: PodSandboxFields = {
  hostname: '',
  network: 'pod',
  pid: 'pod',
  ipc: 'pod',
  userns: 'node',
  sysctls: [],
};

/** What the sandbox process is started with: which namespaces are the pod's own, and how they are set. */
export interface SandboxSpec {
  readonly id: string;
  /** The network namespace CRI made and set up (CreateSandbox's netns_path); undefined: the node's. */
  readonly netns?: string;
  /** A UTS namespace of the pod's with this hostname; undefined: the node's UTS namespace. */
  readonly hostname?: string;
  /** A PID namespace of the pod's, the sandbox process its init, as the pause container has unless pid is the node's. */
  readonly ownPid: boolean;
  readonly ownIpc: boolean;
  readonly sysctls: ReadonlyArray<readonly [string, string]>;
}

/**
 * A sysctl's name: parts of letters, digits, `_` and `-`, between dots or slashes. Kubernetes
 * writes it either way (a dot inside a part, as in an interface `eth0.100`, is written `/` in
 * the dotted form: kubelet's ConvertSysctlVariableToDotsSeparator).
 */
const SYSCTL_NAME = /^[A-Za-z0-9_-]+([./][A-Za-z0-9_-]+)+$/;

/**
 * The name as a path under /proc/sys: a name whose first separator is a dot has its dots and
 * slashes swapped (`net.ipv4.conf.eth0/100.rp_filter` -> `net/ipv4/conf/eth0.100/rp_filter`, as
 * runc does); one that starts with a slash is a path already. A name without a slash is left as
 * it is (the sandbox process turns its dots into slashes).
 */
export function procSysctlKey(name: string): string {
  if (!name.includes('/')) return name;
  const first = /[./]/.exec(name)?.[0];
  if (first === '/') return name;
  return name.replace(/[./]/g, (c) => (c === '.' ? '/' : '.'));
}

/**
 * The sandbox process's spec from CreateSandbox, as containerd's podsandbox sets up the pause
 * container's (internal/cri/server/podsandbox/sandbox_run_linux.go): a pod of the node's network
 * has the node's UTS namespace too; the PID namespace is the pod's unless it is the node's.
 * What this mode cannot hold is refused, naming the way that can (the podsandbox handler).
 */
export function sandboxSpecOf(id: string, netnsPath: string, fields: PodSandboxFields): SandboxSpec {
  const subject = `sandbox ${id}`;
  if (fields.userns === 'pod')
    throw new FailedPreconditionError(
      `${subject}: a pod in a user namespace is not served in skiff's sandbox mode yet; run it with the pause container (a handler with sandboxer = "podsandbox", docs/cri.md)`,
      'SANDBOX.USERNS',
    );
  const hostNetwork = fields.network === 'node';
  if (!hostNetwork && netnsPath === '')
    throw new InvalidArgumentError(
      `${subject}: the pod has a network of its own but CreateSandbox named no network namespace (netns_path)`,
      'SANDBOX.NO_NETNS',
    );
  for (const [name] of fields.sysctls)
    if (!SYSCTL_NAME.test(name))
      throw new InvalidArgumentError(`${subject}: ${JSON.stringify(name)} is not a sysctl name`, 'SANDBOX.SYSCTL');
  return {
    id,
    ...(hostNetwork ? {} : { netns: netnsPath, hostname: fields.hostname }),
    ownPid: fields.pid !== 'node',
    ownIpc: fields.ipc !== 'node',
    sysctls: fields.sysctls,
  };
}

/** SandboxStatus's state: the two strings CRI reads (runtime.PodSandboxState's names). */
export type SandboxState = 'SANDBOX_READY' | 'SANDBOX_NOTREADY';

/** A sandbox process's end as WaitSandbox says it: its exit code, or 128 + the signal that ended it. */
export function sandboxExitStatus(exit: ProcessExit): number {
  return exit.signal !== null ? 128 + exit.signal : (exit.code ?? 255);
}
