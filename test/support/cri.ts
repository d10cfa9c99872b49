/**
 * The CRI client, pod helpers and /proc inspection of scripts/containerd/ (plain JS, shared
 * with the benchmark), typed for the tests. Message fields are the CRI runtime.v1 API's
 * (test/vendor/cri-api/api.proto) in camelCase; int64 values are decimal strings.
 */
const client = require('../../scripts/containerd/cri-client.js') as {
  criClient(address: string, options?: { deadlineMs?: number }): CriClient;
  criReady(cri: CriClient, timeoutMs?: number): Promise<void>;
};
const pods = require('../../scripts/containerd/cri-pods.js') as {
  podConfig(pod: PodSpec): PodSandboxConfig;
  containerConfig(container: ContainerSpec): Record<string, unknown>;
  startPod(
    cri: CriClient,
    request: { handler: string; pod: PodSpec; containers: ContainerSpec[] },
  ): Promise<StartedPod>;
  removePod(cri: CriClient, podSandboxId: string): Promise<void>;
};
const procs = require('../../scripts/containerd/runtime-processes.js') as {
  servingPid(address: string): number | undefined;
  podKeeperPids(address: string): number[];
  taskAddress(bundles: string, namespace: string, id: string): string | undefined;
  runtimeProcesses(addresses: readonly string[], namespaces?: readonly string[]): number[];
  rssBytes(pid: number): number;
  pssBytes(pid: number): number;
  fdCount(pid: number): number;
};

export const { criClient, criReady } = client;
export const { podConfig, containerConfig, startPod, removePod } = pods;
export const { servingPid, podKeeperPids, taskAddress, runtimeProcesses, rssBytes, pssBytes, fdCount } = procs;

export interface CriClient {
  runtime<T = Record<string, unknown>>(method: string, request?: object, deadlineMs?: number): Promise<T>;
  image<T = Record<string, unknown>>(method: string, request?: object, deadlineMs?: number): Promise<T>;
  close(): void;
}

export type PodSandboxConfig = Record<string, unknown>;

export interface PodSpec {
  readonly name: string;
  readonly uid?: string;
  readonly namespace?: string;
  readonly logDirectory: string;
  readonly attempt?: number;
  readonly seccomp?: 'RuntimeDefault' | 'Unconfined';
  /** CRI's namespaceOptions (default: the host's network, a pid namespace per container, the pod's IPC). */
  readonly namespaces?: NamespaceOptions;
  readonly hostname?: string;
  readonly sysctls?: Record<string, string>;
  readonly dnsConfig?: { servers?: string[]; searches?: string[]; options?: string[] };
  /** kubelet's pod cgroup (cgroupfs driver: a path under each controller's root). */
  readonly cgroupParent?: string;
}

type NamespaceMode = 'POD' | 'CONTAINER' | 'NODE' | 'TARGET';
export interface NamespaceOptions {
  readonly network: NamespaceMode;
  readonly pid: NamespaceMode;
  readonly ipc: NamespaceMode;
}

export interface ContainerSpec {
  readonly name: string;
  readonly command: readonly string[];
  /** The imported busybox unless named; a checkpoint archive's path asks for a restore. */
  readonly image?: string;
  readonly attempt?: number;
  readonly logPath?: string;
  readonly resources?: Record<string, unknown>;
  readonly labels?: Record<string, string>;
  /** Run on a terminal (the log gets its output as stdout). */
  readonly tty?: boolean;
  /** Keep stdin open for an Attach (stdinOnce: closed when that Attach ends). */
  readonly stdin?: boolean;
  /** As the pod's (PodSpec.namespaces). */
  readonly namespaces?: NamespaceOptions;
}

export interface StartedPod {
  readonly podSandboxId: string;
  readonly containerIds: string[];
  readonly sandboxConfig: PodSandboxConfig;
  readonly ms: number;
}

export type ContainerState = 'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';

export interface ContainerStatus {
  readonly id: string;
  readonly metadata: { name: string; attempt: number };
  readonly state: ContainerState;
  readonly createdAt: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly exitCode: number;
  readonly reason: string;
  readonly message: string;
  readonly logPath: string;
}

export interface ContainerStatusResponse {
  readonly status: ContainerStatus;
  readonly info: Record<string, string>;
}

export interface ListedContainer {
  readonly id: string;
  readonly podSandboxId: string;
  readonly state: ContainerState;
  readonly metadata: { name: string; attempt: number };
}

export interface ListedPod {
  readonly id: string;
  readonly state: 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
  readonly runtimeHandler: string;
  readonly metadata: { name: string };
}

export interface ExecSyncResponse {
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  readonly exitCode: number;
}

/** A CRI time (int64 nanoseconds since the epoch, as a string) in milliseconds. */
export function nsToMs(ns: string): number {
  return Number(BigInt(ns) / 1_000_000n);
}
