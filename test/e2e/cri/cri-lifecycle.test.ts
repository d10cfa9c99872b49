import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { containerdTestsEnabled } from '../../support/containerd';
import {
  containerConfig,
  ContainerStatusResponse,
  ExecSyncResponse,
  ListedContainer,
  ListedPod,
  nsToMs,
  StartedPod,
} from '../../support/cri';
import {
  cgroupDir,
  containerPid,
  CRI_HANDLERS,
  CriEnv,
  processRuns,
  readCriLog,
  startCriEnv,
  waitForState,
} from './support';
import { waitFor } from '../../support/wait-for';
import { WebSocketClient } from '../../support/websocket';

/** kubectl's streaming subprotocol: one byte of channel (0 stdin, 1 stdout, 2 stderr, 3 status) per message. */
const STREAM_PROTOCOL = 'v4.channel.k8s.io';

/**
 * Kubernetes' path to a runtime: the CRI calls kubelet makes, through containerd's CRI plugin,
 * against each runtime handler (docs/cri.md). What containerd reports is checked against
 * what really runs on the host: pids, cgroups, log files.
 */
if (containerdTestsEnabled())
  describe.each(CRI_HANDLERS)('CRI calls through the %s runtime handler', (handler) => {
    let ctx: CriEnv;
    let pod: StartedPod;
    let n = 0;
    const cri = () => ctx.cri;
    const podSandboxId = () => pod.podSandboxId;

    /** CreateContainer (+ StartContainer unless asked not to) in the test pod. */
    async function container(
      command: string[],
      options: { start?: boolean; resources?: Record<string, unknown>; tty?: boolean } = {},
    ) {
      const name = `c${n++}`;
      const { resources, tty } = options;
      const config = containerConfig({ name, command, logPath: `${name}.log`, resources, tty });
      const { containerId } = await cri().runtime<{ containerId: string }>('CreateContainer', {
        podSandboxId: podSandboxId(),
        config,
        sandboxConfig: pod.sandboxConfig,
      });
      if (options.start !== false) await cri().runtime('StartContainer', { containerId });
      return { containerId, log: join(ctx.logDir, 'lifecycle', `${name}.log`) };
    }

    /**
     * Exec through the CRI streaming server (on loopback, speaking kubectl's subprotocol), with
     * `stdin` sent first: what each channel carried until the stream closed.
     */
    async function streamedExec(request: Record<string, unknown>, stdin?: string): Promise<Map<number, string>> {
      const { url } = await cri().runtime<{ url: string }>('Exec', request);
      expect(new URL(url).hostname).toBe('127.0.0.1');
      const ws = await WebSocketClient.connect(url, [STREAM_PROTOCOL]);
      expect(ws.protocol).toBe(STREAM_PROTOCOL);
      if (stdin !== undefined) ws.send(Buffer.concat([Buffer.from([0]), Buffer.from(stdin)]));
      return channelsOf(ws);
    }

    const status = async (containerId: string) =>
      (await cri().runtime<ContainerStatusResponse>('ContainerStatus', { containerId })).status;

    beforeAll(async () => {
      ctx = await startCriEnv();
      pod = await ctx.startPod(handler, { name: 'lifecycle' }, []);
    });
    afterAll(async () => {
      await ctx?.close();
    });

    it("RunPodSandbox runs a READY pod with this handler: its sandbox process runs in the host's network and a pid namespace of its own", async () => {
      const { status: sandbox, info } = await cri().runtime<{ status: ListedPod; info: Record<string, string> }>(
        'PodSandboxStatus',
        { podSandboxId: podSandboxId(), verbose: true },
      );
      expect(sandbox).toMatchObject({
        state: 'SANDBOX_READY',
        runtimeHandler: handler,
        metadata: { name: 'lifecycle' },
      });
      const pid = Number(JSON.parse(info.info).pid);
      expect(processRuns(pid)).toBe(true);
      const ns = (of: number | 'self', kind: string) => readlinkSync(`/proc/${of}/ns/${kind}`);
      expect(ns(pid, 'net')).toBe(ns('self', 'net'));
      expect(ns(pid, 'pid')).not.toBe(ns('self', 'pid'));
    });

    it('CreateContainer leaves a CREATED container; StartContainer runs it; ContainerStatus reports exit code, reason and times', async () => {
      const before = Date.now();
      const { containerId } = await container(['sh', '-c', 'sleep 1; exit 4'], { start: false });
      expect(await status(containerId)).toMatchObject({ state: 'CONTAINER_CREATED', exitCode: 0, startedAt: '0' });
      await cri().runtime('StartContainer', { containerId });
      const running = await status(containerId);
      expect(running.state).toBe('CONTAINER_RUNNING');
      expect(processRuns(await containerPid(cri(), containerId))).toBe(true);
      const { status: exited } = await waitForState(cri(), containerId, 'CONTAINER_EXITED');
      expect(exited).toMatchObject({ exitCode: 4, reason: 'Error' });
      const [created, started, finished] = [exited.createdAt, exited.startedAt, exited.finishedAt].map(nsToMs);
      expect(created).toBeGreaterThanOrEqual(before - 1000);
      expect(started).toBeGreaterThanOrEqual(created);
      expect(finished - started).toBeGreaterThanOrEqual(900);
      expect(finished).toBeLessThanOrEqual(Date.now());
    });

    it('a container that exits 0 is Completed', async () => {
      const { containerId } = await container(['true']);
      const { status: exited } = await waitForState(cri(), containerId, 'CONTAINER_EXITED');
      expect(exited).toMatchObject({ exitCode: 0, reason: 'Completed' });
    });

    it("writes the container's stdout and stderr to log_path in the CRI log format, partial lines tagged P", async () => {
      const { containerId, log } = await container(['sh', '-c', 'echo out-line; echo err-line >&2; printf partial']);
      await waitForState(cri(), containerId, 'CONTAINER_EXITED');
      expect((await status(containerId)).logPath).toBe(log);
      const lines = await waitFor('three log lines', () => {
        const read = readCriLog(log);
        return read.length >= 3 ? read : undefined;
      });
      expect(
        lines.map(({ stream, tag, text }) => ({ stream, tag, text })).sort((a, b) => a.text.localeCompare(b.text)),
      ).toEqual([
        { stream: 'stderr', tag: 'F', text: 'err-line' },
        { stream: 'stdout', tag: 'F', text: 'out-line' },
        { stream: 'stdout', tag: 'P', text: 'partial' },
      ]);
    });

    it('ExecSync returns stdout, stderr and the exit code of a command run in the container', async () => {
      const { containerId } = await container(['sleep', '1000']);
      const reply = await cri().runtime<ExecSyncResponse>('ExecSync', {
        containerId,
        cmd: ['sh', '-c', 'echo out; echo err >&2; cat /proc/1/cmdline; exit 3'],
        timeout: 10,
      });
      expect(reply.exitCode).toBe(3);
      expect(reply.stdout.toString()).toBe('out\nsleep\u00001000\u0000');
      expect(reply.stderr.toString()).toBe('err\n');
    });

    it('ExecSync past its timeout fails with the deadline, and the command is killed', async () => {
      const { containerId } = await container(['sleep', '1000']);
      const pid = await containerPid(cri(), containerId);
      // StartContainer returns once runc's init was told to go, before it execs sleep: a SIGTERM
      // then meets runc's Go init, which exits 2 (seen with containerd's runc shim, 41 and 77 ms).
      // A container that ignores SIGTERM is what this is about, so it is asked once sleep runs.
      await waitFor('the container to be running sleep', () => readFileSync(`/proc/${pid}/comm`, 'utf8') === 'sleep\n');
      const started = Date.now();
      await expect(cri().runtime('ExecSync', { containerId, cmd: ['sleep', '97'], timeout: 1 })).rejects.toThrow(
        /timeout 1s exceeded|deadline/i,
      );
      expect(Date.now() - started).toBeLessThan(8_000);
      const cgroup = cgroupDir(pid, 'pids');
      await waitFor('the timed-out exec to be gone', () => {
        const left = readFileSync(join(cgroup, 'cgroup.procs'), 'utf8')
          .split('\n')
          .filter(
            (p) => p !== '' && existsSync(`/proc/${p}`) && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('97'),
          );
        return left.length === 0;
      });
      expect((await status(containerId)).state).toBe('CONTAINER_RUNNING');
    });

    it('Exec streams a command through the CRI streaming server: stdout, stderr and the exit status', async () => {
      const { containerId } = await container(['sleep', '1000']);
      const channels = await streamedExec({
        containerId,
        cmd: ['sh', '-c', 'echo streamed out; echo streamed err >&2; exit 3'],
        stdout: true,
        stderr: true,
      });
      expect(channels.get(1)).toBe('streamed out\n');
      expect(channels.get(2)).toBe('streamed err\n');
      expect(JSON.parse(channels.get(3) ?? '{}')).toMatchObject({
        status: 'Failure',
        reason: 'NonZeroExitCode',
        details: { causes: [{ reason: 'ExitCode', message: '3' }] },
      });
    });

    it('a tty container runs on a terminal, and its output reaches log_path as stdout', async () => {
      const { containerId, log } = await container(['sh', '-c', 'tty; echo on a terminal'], { tty: true });
      const { status: exited } = await waitForState(cri(), containerId, 'CONTAINER_EXITED');
      expect(exited.exitCode).toBe(0);
      const lines = await waitFor('two log lines', () => {
        const read = readCriLog(log);
        return read.length >= 2 ? read : undefined;
      });
      expect(lines.map(({ stream, text }) => [stream, text.replace(/\r$/, '')])).toEqual([
        ['stdout', '/dev/pts/0'],
        ['stdout', 'on a terminal'],
      ]);
    });

    it('Exec with tty and stdin runs the command on a terminal that reads what the client sends', async () => {
      const { containerId } = await container(['sleep', '1000']);
      const channels = await streamedExec(
        { containerId, cmd: ['sh', '-c', 'tty; read line; echo "got $line"'], tty: true, stdin: true, stdout: true },
        'hello\n',
      );
      const output = (channels.get(1) ?? '').replace(/\r/g, '');
      expect(output).toMatch(/^\/dev\/pts\/\d+\n/m);
      expect(output).toContain('got hello\n');
      expect(JSON.parse(channels.get(3) ?? '{}')).toMatchObject({ status: 'Success' });
    });

    it('ContainerStats reports the CPU and memory the container uses', async () => {
      const { containerId } = await container([
        'sh',
        '-c',
        'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; sleep 1000',
      ]);
      await new Promise((resolve) => setTimeout(resolve, 700));
      // The cgroup's usage is read on both sides of the call: the shell's memory moves
      // while it counts, and a read after the reply alone can be below the one it reported.
      const usageFile = join(cgroupDir(await containerPid(cri(), containerId), 'memory'), 'memory.usage_in_bytes');
      const usageBefore = Number(readFileSync(usageFile, 'utf8'));
      const { stats } = await cri().runtime<{ stats: Record<string, { [k: string]: { value: string } | string }> }>(
        'ContainerStats',
        { containerId },
      );
      expect(stats).toMatchObject({ attributes: { id: containerId } });
      const cpu = stats.cpu as Record<string, { value: string }>;
      const memory = stats.memory as Record<string, { value: string }>;
      expect(Number(cpu.usageCoreNanoSeconds.value)).toBeGreaterThan(10_000_000);
      const usage = Math.max(usageBefore, Number(readFileSync(usageFile, 'utf8')));
      expect(Number(memory.workingSetBytes.value)).toBeGreaterThan(0);
      expect(Number(memory.workingSetBytes.value)).toBeLessThanOrEqual(usage * 2);
    });

    it("UpdateContainerResources changes the running container's cgroup limits", async () => {
      const { containerId } = await container(['sleep', '1000'], {
        resources: { memoryLimitInBytes: 256 * 1024 * 1024, cpuShares: 1024 },
      });
      const pid = await containerPid(cri(), containerId);
      const memoryLimit = () => Number(readFileSync(join(cgroupDir(pid, 'memory'), 'memory.limit_in_bytes'), 'utf8'));
      const shares = () => Number(readFileSync(join(cgroupDir(pid, 'cpu'), 'cpu.shares'), 'utf8'));
      expect([memoryLimit(), shares()]).toEqual([256 * 1024 * 1024, 1024]);
      await cri().runtime('UpdateContainerResources', {
        containerId,
        linux: { memoryLimitInBytes: 64 * 1024 * 1024, cpuShares: 512 },
      });
      expect([memoryLimit(), shares()]).toEqual([64 * 1024 * 1024, 512]);
    });

    it('StopContainer ends a container that handles SIGTERM within the grace period', async () => {
      const { containerId, log } = await container([
        'sh',
        '-c',
        'trap "echo got TERM; exit 3" TERM; sleep 1000 & wait',
      ]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = Date.now();
      await cri().runtime('StopContainer', { containerId, timeout: 20 });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await status(containerId)).toMatchObject({ state: 'CONTAINER_EXITED', exitCode: 3 });
      expect(readCriLog(log).map((line) => line.text)).toContain('got TERM');
    });

    it('StopContainer SIGKILLs a container that ignores SIGTERM once the grace period is over', async () => {
      const { containerId } = await container(['sleep', '1000']);
      const pid = await containerPid(cri(), containerId);
      // StartContainer returns once runc's init was told to go, before it execs sleep: a SIGTERM
      // then meets runc's Go init, which exits 2 (seen with containerd's runc shim, 41 and 77 ms).
      // A container that ignores SIGTERM is what this is about, so it is asked once sleep runs.
      await waitFor('the container to be running sleep', () => readFileSync(`/proc/${pid}/comm`, 'utf8') === 'sleep\n');
      const started = Date.now();
      await cri().runtime('StopContainer', { containerId, timeout: 2 });
      const took = Date.now() - started;
      // Together, so that a StopContainer that returns early says how the container ended (seen once, 41 ms).
      expect({
        took: took >= 1_900 && took < 8_000 ? 'the grace period' : took,
        ...(await status(containerId)),
      }).toMatchObject({
        took: 'the grace period',
        state: 'CONTAINER_EXITED',
        exitCode: 137,
      });
      expect(processRuns(pid)).toBe(false);
      await cri().runtime('StopContainer', { containerId, timeout: 2 });
    });

    it('ListContainers and ListPodSandbox report states that agree with what runs; RemoveContainer forgets one', async () => {
      const running = await container(['sleep', '1000']);
      const created = await container(['sleep', '1000'], { start: false });
      const exited = await container(['true']);
      await waitForState(cri(), exited.containerId, 'CONTAINER_EXITED');
      const { containers } = await cri().runtime<{ containers: ListedContainer[] }>('ListContainers', {
        filter: { podSandboxId: podSandboxId() },
      });
      const stateOf = (id: string) => containers.find((c) => c.id === id)?.state;
      expect([stateOf(running.containerId), stateOf(created.containerId), stateOf(exited.containerId)]).toEqual([
        'CONTAINER_RUNNING',
        'CONTAINER_CREATED',
        'CONTAINER_EXITED',
      ]);
      expect(processRuns(await containerPid(cri(), running.containerId))).toBe(true);
      const onlyRunning = await cri().runtime<{ containers: ListedContainer[] }>('ListContainers', {
        filter: { podSandboxId: podSandboxId(), state: { state: 'CONTAINER_RUNNING' } },
      });
      expect(onlyRunning.containers.map((c) => c.id)).toContain(running.containerId);
      expect(onlyRunning.containers.map((c) => c.id)).not.toContain(exited.containerId);
      const { items } = await cri().runtime<{ items: ListedPod[] }>('ListPodSandbox', {
        filter: { id: podSandboxId() },
      });
      expect(items).toEqual([
        expect.objectContaining({ id: podSandboxId(), state: 'SANDBOX_READY', runtimeHandler: handler }),
      ]);

      await cri().runtime('RemoveContainer', { containerId: exited.containerId });
      await cri().runtime('RemoveContainer', { containerId: created.containerId });
      await expect(status(exited.containerId)).rejects.toThrow(/not found|does not exist/i);
      const after = await cri().runtime<{ containers: ListedContainer[] }>('ListContainers', {
        filter: { podSandboxId: podSandboxId() },
      });
      expect(after.containers.map((c) => c.id)).not.toContain(exited.containerId);
    });

    it('StopPodSandbox stops every container of the pod and its sandbox; RemovePodSandbox removes them all', async () => {
      const other = await ctx.startPod(handler, { name: 'stopped' }, [
        { name: 'a', command: ['sleep', '1000'] },
        { name: 'b', command: ['sleep', '1000'] },
      ]);
      const pids = await Promise.all(other.containerIds.map((id) => containerPid(cri(), id)));
      const { info } = await cri().runtime<{ info: Record<string, string> }>('PodSandboxStatus', {
        podSandboxId: other.podSandboxId,
        verbose: true,
      });
      const sandboxPid = Number(JSON.parse(info.info).pid);
      await cri().runtime('StopPodSandbox', { podSandboxId: other.podSandboxId });
      for (const id of other.containerIds) expect((await status(id)).state).toBe('CONTAINER_EXITED');
      expect([...pids, sandboxPid].filter(processRuns)).toEqual([]);
      const { items } = await cri().runtime<{ items: ListedPod[] }>('ListPodSandbox', {
        filter: { id: other.podSandboxId },
      });
      expect(items.map((p) => p.state)).toEqual(['SANDBOX_NOTREADY']);
      await cri().runtime('StopPodSandbox', { podSandboxId: other.podSandboxId });
      await cri().runtime('RemovePodSandbox', { podSandboxId: other.podSandboxId });
      const left = await cri().runtime<{ containers: ListedContainer[] }>('ListContainers', {
        filter: { podSandboxId: other.podSandboxId },
      });
      expect(left.containers).toEqual([]);
      expect(
        (await cri().runtime<{ items: ListedPod[] }>('ListPodSandbox', { filter: { id: other.podSandboxId } })).items,
      ).toEqual([]);
      expect(existsSync(join(ctx.env.paths.bundles, 'k8s.io', other.podSandboxId))).toBe(false);
    });
  });

/** Everything a v4.channel.k8s.io stream carried until it closed, by channel (the first byte of each message). */
async function channelsOf(ws: WebSocketClient): Promise<Map<number, string>> {
  const channels = new Map<number, string>();
  for (const { data } of await ws.all())
    if (data.length > 1) channels.set(data[0], (channels.get(data[0]) ?? '') + data.subarray(1).toString());
  return channels;
}
