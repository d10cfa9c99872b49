import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ContainerdOptions, PrivateContainerd, startContainerd } from '../../support/containerd';
import {
  ContainerSpec,
  ContainerState,
  ContainerStatusResponse,
  criClient,
  CriClient,
  ExecSyncResponse,
  criReady,
  PodSpec,
  removePod,
  startPod,
  StartedPod,
} from '../../support/cri';
import { waitFor } from '../../support/wait-for';

export { criReady };
export { processRuns } from '../../support/containerd';

/**
 * The CRI runtime handlers every suite runs against (RuntimeClass handler names; the
 * private containerd maps runc -> io.containerd.runc.v2, the baseline, and skiff ->
 * io.containerd.skiff.v2, bin/containerd-shim-skiff-v2).
 */
export const CRI_HANDLERS: readonly string[] = ['runc', 'skiff'];

/** The CRI plugin's namespace in containerd. */
export const K8S_NS = 'k8s.io';

/** One private containerd with the CRI plugin for a test file, and the pods its tests start. */
export interface CriEnv {
  readonly env: PrivateContainerd;
  readonly cri: CriClient;
  readonly logDir: string;
  /** Starts a pod through `handler` and remembers it for close(). */
  startPod(handler: string, pod: Omit<PodSpec, 'logDirectory'>, containers: ContainerSpec[]): Promise<StartedPod>;
  /** Removes the pods still there, closes the client, stops containerd (rejects on leftovers). */
  close(): Promise<void>;
}

/** Starts containerd with the CRI plugin (options as startContainerd's) and the images in k8s.io. */
export async function startCriEnv(options: Omit<ContainerdOptions, 'cri'> = {}): Promise<CriEnv> {
  const env = await startContainerd({ ...options, cri: true });
  await env.importImages(K8S_NS);
  const cri = criClient(env.address);
  await criReady(cri);
  const logDir = join(env.paths.dir, 'pod-logs');
  mkdirSync(logDir, { mode: 0o700 });
  const pods = new Set<string>();
  return {
    env,
    cri,
    logDir,
    async startPod(handler, pod, containers) {
      const podLogs = join(logDir, pod.name);
      mkdirSync(podLogs, { recursive: true, mode: 0o700 });
      const started = await startPod(cri, { handler, pod: { ...pod, logDirectory: podLogs }, containers });
      pods.add(started.podSandboxId);
      return started;
    },
    async close() {
      for (const id of pods) await removePod(cri, id).catch(() => undefined);
      cri.close();
      await env.stop();
    },
  };
}

/** The host pid of a container's process, from ContainerStatus's verbose info (0 once it has exited). */
export async function containerPid(cri: CriClient, containerId: string): Promise<number> {
  const reply = await cri.runtime<ContainerStatusResponse>('ContainerStatus', { containerId, verbose: true });
  return Number(JSON.parse(reply.status.state === 'CONTAINER_EXITED' ? '{"pid":0}' : reply.info.info).pid);
}

/** Polls ContainerStatus until the container is in `state`; resolves its status reply. A timeout says the state it had last. */
export async function waitForState(
  cri: CriClient,
  containerId: string,
  state: ContainerState,
  timeoutMs = 10_000,
): Promise<ContainerStatusResponse> {
  let seen = 'unknown';
  return waitFor(
    () => `container ${containerId.slice(0, 12)} to be ${state} (it is ${seen})`,
    async () => {
      const reply = await cri.runtime<ContainerStatusResponse>('ContainerStatus', { containerId });
      seen = reply.status.state;
      return reply.status.state === state ? reply : undefined;
    },
    timeoutMs,
  );
}

/** One line of a CRI log file: `<RFC 3339 time> <stdout|stderr> <F|P> <text>`. */
export interface LogLine {
  readonly time: string;
  readonly stream: 'stdout' | 'stderr';
  readonly tag: 'F' | 'P';
  readonly text: string;
}

const LOG_LINE = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) (stdout|stderr) (F|P) (.*)$/;

/** The lines of a CRI log file; throws naming the first line that is not in the CRI format. */
export function readCriLog(file: string): LogLine[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const match = LOG_LINE.exec(line);
      if (match === null) throw new Error(`not a CRI log line in ${file}: ${JSON.stringify(line)}`);
      return { time: match[1], stream: match[2], tag: match[3], text: match[4] } as LogLine;
    });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The cgroup (v1 controller or v2) directory a process is in, e.g. cgroupDir(pid, 'memory'). */
export function cgroupDir(pid: number, controller: string): string {
  const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n');
  const v1 = lines.find((line) => line.split(':')[1]?.split(',').includes(controller));
  if (v1 !== undefined) return join('/sys/fs/cgroup', controller, v1.split(':')[2]);
  const v2 = lines.find((line) => line.startsWith('0::'));
  if (v2 === undefined) throw new Error(`process ${pid} has no ${controller} cgroup`);
  return join('/sys/fs/cgroup', v2.slice(3));
}

/**
 * A ticker (`tick <n>` a line) that came through an outage of its runtime (containerd's restart,
 * skiff's hand-over): ExecSync answers in it, and its CRI log goes on with no line lost.
 */
export async function expectTickingOn(cri: CriClient, containerId: string, log: string): Promise<void> {
  const reply = await cri.runtime<ExecSyncResponse>('ExecSync', {
    containerId,
    cmd: ['echo', 'still here'],
    timeout: 10,
  });
  expect(reply).toMatchObject({ exitCode: 0 });
  expect(reply.stdout.toString()).toBe('still here\n');
  const ticks = readCriLog(log).length;
  await waitFor('the ticker to go on logging', () => readCriLog(log).length > ticks + 5);
  const texts = readCriLog(log).map((l) => l.text);
  expect(texts).toEqual(texts.map((_, i) => `tick ${i}`));
}
