import { suitesRunHere } from './suite-gate';
const { CONTAINERD_TOOLS } = require('../../scripts/missing-tools.js') as { CONTAINERD_TOOLS: readonly string[] };

/**
 * A private containerd per suite (own root, state, sockets; the repository's bin/ first on
 * its PATH; the busybox and pause images imported offline). The implementation is plain JS
 * in scripts/containerd/ because the benchmark shares it; this file gives it types and
 * decides whether the suites run here. See docs/containerd-testing.md.
 */
const impl = require('../../scripts/containerd/private-containerd.js') as {
  PrivateContainerd: { start(options?: ContainerdOptions): Promise<PrivateContainerd> };
  sweepStale(): Promise<string[]>;
  BUSYBOX_IMAGE: string;
  PAUSE_IMAGE: string;
};
const config = require('../../scripts/containerd/config.js') as {
  containerdConfig(dir: string, options?: ContainerdOptions): string;
};
const teardownJs = require('../../scripts/containerd/teardown.js') as {
  runcShimSocket(address: string, key: string): string;
};
const ctrJs = require('../../scripts/containerd/ctr.js') as {
  describe(args: readonly string[], result: CtrResult): string;
};
const ltsJs = require('../../scripts/containerd/lts.js') as {
  ltsContainerd(): { bin?: string; missing?: string };
  LTS_VERSION: string;
};
const procfs = require('../../scripts/containerd/procfs.js') as { alive(pid: number): boolean };

export const BUSYBOX_IMAGE = impl.BUSYBOX_IMAGE;
export const PAUSE_IMAGE = impl.PAUSE_IMAGE;
export const containerdConfig = config.containerdConfig;
export const runcShimSocket = teardownJs.runcShimSocket;
export const sweepStaleContainerds = impl.sweepStale;
/** One line for an error message: the ctr command and how it ended (exit, signal or time-out, its last stderr line). */
export const describeCtr = ctrJs.describe;
/** Whether a process with that pid runs (and is not a zombie waiting to be reaped). */
export const processRuns = (pid: number): boolean => procfs.alive(pid);

export interface ContainerdOptions {
  /** Enable the CRI plugin (host-network pods; sandbox_image = the local pause image). */
  readonly cri?: boolean;
  readonly logLevel?: 'info' | 'debug' | 'trace';
  /** Put first on containerd's PATH, where it looks for containerd-shim-NAME-v2 (default: the repository's bin/). */
  readonly shimDirs?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly sandboxImage?: string;
  /**
   * skiff's section of config.toml as `skiff containerd config` printed it, or a printer given the
   * path of the config it goes into (default: this checkout's, for 1.6).
   */
  readonly skiffSection?: string | ((configFile: string) => string);
  /** containerd's PATH after shimDirs (default: this process's). */
  readonly systemPath?: string;
  /** The instance's dir 0711, as /run/containerd is on a node: user-namespaced containers reach their rootfs. */
  readonly searchable?: boolean;
  /** containerd 2.3.4 (its ctr and runc shim too) from the shared archive, with a version 3 config. */
  readonly lts?: boolean;
  /** A CNI network for pods with a network of their own (scripts/containerd/cni.js); else host-network pods only. */
  readonly podNetwork?: boolean;
  /** With lts: a handler of this name in skiff's sandbox mode beside `skiff`, as `skiff containerd config --sandboxer shim` prints it. */
  readonly sandboxHandler?: string;
}

export interface CtrResult {
  readonly stdout: string;
  readonly stderr: string;
  /** The exit code, or null when ctr was killed (see signal, timedOut). */
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly ms: number;
}

export interface CtrOptions {
  /** Default 15 s; then ctr is killed and the result says timedOut. */
  readonly timeoutMs?: number;
  /** Written to ctr's stdin (otherwise /dev/null). */
  readonly input?: string;
  /**
   * Where run and exec keep their FIFOs (default: the instance's own directory); `undefined`
   * given leaves --fifo-dir out: `ctr task exec` refuses it beside --log-uri.
   */
  readonly fifoDir?: string;
}

export interface ContainerdPaths {
  readonly dir: string;
  readonly config: string;
  readonly log: string;
  readonly root: string;
  readonly state: string;
  readonly address: string;
  readonly ttrpcAddress: string;
  readonly fifoDir: string;
  readonly bundles: string;
}

export interface PrivateContainerd {
  readonly paths: ContainerdPaths;
  readonly address: string;
  readonly pid: number | undefined;
  /** `ctr --address <socket> -n <namespace> ...args` (run/exec FIFOs kept in the instance's dir). */
  ctr(namespace: string, args: readonly string[], options?: CtrOptions): Promise<CtrResult>;
  /** Imports BUSYBOX_IMAGE and PAUSE_IMAGE into the namespace (k8s.io for CRI). */
  importImages(namespace: string): Promise<{ busybox: string; pause: string }>;
  /** Stops the daemon (SIGTERM: clean; SIGKILL: a crash) and starts it again on the same state. */
  restart(options?: { signal?: 'SIGTERM' | 'SIGKILL' }): Promise<void>;
  /** Removes everything it made; rejects with one line naming what was left behind. */
  stop(): Promise<void>;
}

export function startContainerd(options: ContainerdOptions = {}): Promise<PrivateContainerd> {
  return impl.PrivateContainerd.start(options);
}

let counter = 0;
/**
 * A namespace no other containerd on the machine uses: the runc shim keeps its state in
 * /run/containerd/runc/<namespace>/<id> and ctr puts cgroups at /<namespace>/<id>, both
 * shared with the machine's own containerd.
 */
export function uniqueNamespace(prefix = 'skiff'): string {
  return `${prefix}-${process.pid}-${counter++}`;
}

/**
 * Whether the containerd suites run here: root, containerd (with ctr), runc and
 * busybox-static (SKIFF_CONTAINERD_TESTS as suitesRunHere says).
 */
export function containerdTestsEnabled(): boolean {
  return suitesRunHere({
    suites: 'containerd suites',
    flag: 'SKIFF_CONTAINERD_TESTS',
    tools: CONTAINERD_TOOLS,
    packages: 'containerd runc busybox-static',
  });
}

export const LTS_VERSION = ltsJs.LTS_VERSION;
let ltsNoted = false;

/**
 * Whether the containerd 2.3 suites run here: the containerd suites do, and containerd 2.3.4's
 * archive is beside the checkout (lts.js unpacks it once, its sums checked). Where it is missing
 * they are left out with one line; under CI=true or SKIFF_CONTAINERD_TESTS=1 that is an error.
 */
export function ltsContainerdTestsEnabled(): boolean {
  if (!containerdTestsEnabled()) return false;
  const lts = ltsJs.ltsContainerd();
  if (lts.bin !== undefined) return true;
  if (process.env.CI === 'true' || process.env.SKIFF_CONTAINERD_TESTS === '1')
    throw new Error(`the containerd ${LTS_VERSION} suites cannot run: ${lts.missing}`);
  if (!ltsNoted) process.stderr.write(`containerd ${LTS_VERSION} suites not run here: ${lts.missing}\n`);
  ltsNoted = true;
  return false;
}

const cniJs = require('../../scripts/containerd/cni.js') as { podNetworkMissing(): string | undefined };
let podNetworkNoted = false;

/**
 * Whether the suites of pods with a network of their own run here: the containerd suites do and
 * the reference CNI plugins are installed (scripts/containerd/cni.js). Missing, they are left
 * out with one line; under CI=true or SKIFF_CONTAINERD_TESTS=1 that is an error.
 */
export function podNetworkTestsEnabled(): boolean {
  if (!containerdTestsEnabled()) return false;
  const missing = cniJs.podNetworkMissing();
  if (missing === undefined) return true;
  if (process.env.CI === 'true' || process.env.SKIFF_CONTAINERD_TESTS === '1')
    throw new Error(`the pod network suites cannot run: ${missing}`);
  if (!podNetworkNoted) process.stderr.write(`pod network suites not run here: ${missing}\n`);
  podNetworkNoted = true;
  return false;
}
