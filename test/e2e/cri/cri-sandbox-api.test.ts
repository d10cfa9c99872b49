import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readdirSync, readFileSync, rmdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  containerdTestsEnabled,
  LTS_VERSION,
  ltsContainerdTestsEnabled,
  podNetworkTestsEnabled,
} from '../../support/containerd';
import { ExecSyncResponse, NamespaceOptions, podKeeperPids } from '../../support/cri';
import { containerPid, CriEnv, K8S_NS, readCriLog, startCriEnv, waitForState } from './support';
import { waitFor } from '../../support/wait-for';
import { groupServersUnder } from '../containerd/skiff-support';

const procfs = require('../../../scripts/containerd/procfs.js') as { mountsUnder(dir: string): string[] };

/**
 * Pods without a pause container (docs/cri.md, "The sandbox mode"): a handler with
 * `sandboxer = "shim"`, as `skiff containerd config --sandboxer shim` prints it (beside skiff's
 * default handler, as an operator appends both: scripts/containerd/config.js), under containerd
 * 2.3's CRI. CRI calls skiff's Sandbox API, the pod keeper's child `skiff-sandbox` holds the
 * pod's namespaces, and the containers join them through its pid. Pods with a network of their
 * own get one from the reference CNI plugins (scripts/containerd/cni.js).
 */
const HANDLER = 'skiff-sandbox';
const RUN = resolve(__dirname, '../../../bin/run.js');

const OWN_NETWORK: NamespaceOptions = { network: 'POD', pid: 'POD', ipc: 'POD' };
const HOST_NETWORK: NamespaceOptions = { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' };

const nsOf = (pid: number, ns: string) => {
  const st = statSync(`/proc/${pid}/ns/${ns}`);
  return `${st.dev}:${st.ino}`;
};

if (containerdTestsEnabled() && ltsContainerdTestsEnabled() && podNetworkTestsEnabled())
  describe(`pods without a pause container: skiff's Sandbox API under containerd ${LTS_VERSION}'s CRI`, () => {
    let ctx: CriEnv;
    let sandboxes: string;

    beforeAll(async () => {
      ctx = await startCriEnv({ lts: true, podNetwork: true, sandboxHandler: HANDLER });
      sandboxes = join(ctx.env.paths.state, 'io.containerd.sandbox.controller.v1.shim', K8S_NS);
    }, 60_000);
    afterAll(async () => {
      await ctx?.close();
    });

    /** The sandbox process of a pod: the pid `sandbox` wrote into the sandbox's bundle. */
    const sandboxPid = (podId: string) => Number(readFileSync(join(sandboxes, podId, 'sandbox.pid'), 'utf8'));
    const exec = async (containerId: string, cmd: string[]) => {
      const reply = await ctx.cri.runtime<ExecSyncResponse>('ExecSync', { containerId, cmd, timeout: 10 });
      return { code: reply.exitCode, out: reply.stdout.toString().trim() };
    };
    const ctrLs = (what: 'tasks' | 'containers') =>
      ctx.env.ctr(K8S_NS, [what, 'ls', '-q']).then((r) => r.stdout.split('\n').filter((l) => l !== ''));

    it('runs a pod with a network of its own and no pause container: its containers join the namespaces skiff-sandbox holds', async () => {
      const pod = await ctx.startPod(
        HANDLER,
        {
          name: 'own',
          namespaces: OWN_NETWORK,
          hostname: 'sandboxed-pod',
          // The slash form too, as Kubernetes may write a sysctl's name.
          sysctls: {
            'net.ipv4.ip_unprivileged_port_start': '0',
            'kernel.shm_rmid_forced': '1',
            'net/ipv4/ip_default_ttl': '63',
          },
          dnsConfig: { servers: ['10.96.0.10'], searches: ['default.svc.cluster.local'], options: ['ndots:5'] },
        },
        [
          { name: 'a', command: ['sh', '-c', 'echo hello from a; exec sleep 1000'], namespaces: OWN_NETWORK },
          { name: 'b', command: ['sleep', '1000'], namespaces: OWN_NETWORK },
        ],
      );
      const status = await ctx.cri.runtime<{ status: { state: string; network: { ip: string } } }>('PodSandboxStatus', {
        podSandboxId: pod.podSandboxId,
      });
      expect(status.status.state).toBe('SANDBOX_READY');
      expect(status.status.network.ip).toMatch(/^10\.222\.\d+\.\d+$/);

      // No pause container: the pod's only tasks are its two containers, and no process runs /pause.
      const tasks = await ctrLs('tasks');
      expect(tasks).toEqual(expect.arrayContaining(pod.containerIds));
      expect(tasks).not.toContain(pod.podSandboxId);
      expect(await ctrLs('containers')).not.toContain(pod.podSandboxId);
      const holder = sandboxPid(pod.podSandboxId);
      expect(readFileSync(`/proc/${holder}/comm`, 'utf8').trim()).toBe('skiff-sandbox');
      const pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
      const pause = pids.filter((p) => {
        try {
          return readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0')[0] === '/pause';
        } catch {
          return false;
        }
      });
      expect(pause).toEqual([]);

      for (const id of pod.containerIds) {
        const pid = await containerPid(ctx.cri, id);
        for (const ns of ['net', 'ipc', 'uts', 'pid'])
          expect(`${id.slice(0, 8)} ${nsOf(pid, ns)}`).toBe(`${id.slice(0, 8)} ${nsOf(holder, ns)}`);
      }
      expect(nsOf(holder, 'net')).not.toBe(nsOf(process.pid, 'net'));
      const [a] = pod.containerIds;
      expect(await exec(a, ['hostname'])).toEqual({ code: 0, out: 'sandboxed-pod' });
      expect(await exec(a, ['cat', '/proc/sys/net/ipv4/ip_unprivileged_port_start'])).toEqual({ code: 0, out: '0' });
      expect(await exec(a, ['cat', '/proc/sys/kernel/shm_rmid_forced'])).toEqual({ code: 0, out: '1' });
      expect(await exec(a, ['cat', '/proc/sys/net/ipv4/ip_default_ttl'])).toEqual({ code: 0, out: '63' });
      // The pod shares one PID namespace: its init is the sandbox process.
      expect(await exec(a, ['cat', '/proc/1/comm'])).toEqual({ code: 0, out: 'skiff-sandbox' });
      expect((await exec(a, ['ip', '-4', 'addr', 'show', 'eth0'])).out).toContain(
        `inet ${status.status.network.ip}/24`,
      );
      // The pod's files, which the pause container's controller makes and skiff makes here: its
      // DNS config, its hostname, one /dev/shm for both containers.
      const [, b] = pod.containerIds;
      expect(await exec(a, ['cat', '/etc/resolv.conf'])).toEqual({
        code: 0,
        out: 'search default.svc.cluster.local\nnameserver 10.96.0.10\noptions ndots:5',
      });
      expect(await exec(b, ['cat', '/etc/hostname'])).toEqual({ code: 0, out: 'sandboxed-pod' });
      expect(await exec(a, ['sh', '-c', 'echo shared > /dev/shm/mark'])).toEqual({ code: 0, out: '' });
      expect(await exec(b, ['cat', '/dev/shm/mark'])).toEqual({ code: 0, out: 'shared' });
      const criFiles = [ctx.env.paths.root, ctx.env.paths.state].map((dir) =>
        join(dir, 'io.containerd.grpc.v1.cri', 'sandboxes', pod.podSandboxId),
      );
      for (const dir of criFiles) expect(existsSync(dir)).toBe(true);

      const log = join(ctx.logDir, 'own', 'a_0.log');
      await waitFor('the container output in its log', () => readCriLog(log).some((l) => l.text === 'hello from a'));

      // StopPodSandbox ends the containers and the sandbox process; the pod reads NOTREADY.
      await ctx.cri.runtime('StopPodSandbox', { podSandboxId: pod.podSandboxId });
      for (const id of pod.containerIds) await waitForState(ctx.cri, id, 'CONTAINER_EXITED');
      await waitFor(
        'the sandbox process to end',
        () => !existsSync(`/proc/${holder}/comm`) || readFileSync(`/proc/${holder}/stat`, 'utf8').includes(') Z '),
      );
      await waitFor('the pod to read NOTREADY', async () => {
        const after = await ctx.cri.runtime<{ status: { state: string } }>('PodSandboxStatus', {
          podSandboxId: pod.podSandboxId,
        });
        return after.status.state === 'SANDBOX_NOTREADY';
      });

      // RemovePodSandbox leaves nothing of the pod: its bundle, mounts, keeper and keeper socket go.
      const keepers = podKeeperPids(ctx.env.address);
      await ctx.cri.runtime('RemovePodSandbox', { podSandboxId: pod.podSandboxId });
      expect(existsSync(join(sandboxes, pod.podSandboxId))).toBe(false);
      expect(procfs.mountsUnder(join(sandboxes, pod.podSandboxId))).toEqual([]);
      for (const dir of criFiles) {
        expect(existsSync(dir)).toBe(false);
        expect(procfs.mountsUnder(dir)).toEqual([]);
      }
      await waitFor('the pod keeper to leave', () => podKeeperPids(ctx.env.address).length < keepers.length, 90_000);
    }, 180_000);

    it('a SIGKILL of the serving process loses no pod: the next one takes the sandbox over, its exec, its Stop and its Remove', async () => {
      const pod = await ctx.startPod(HANDLER, { name: 'crash', namespaces: OWN_NETWORK, hostname: 'kept' }, [
        { name: 'a', command: ['sleep', '1000'], namespaces: OWN_NETWORK },
      ]);
      const holder = sandboxPid(pod.podSandboxId);
      const [a] = pod.containerIds;
      const servers = groupServersUnder(ctx.env.paths.dir);
      expect(servers).toHaveLength(1);
      process.kill(servers[0].pid, 'SIGKILL');
      // The pod's keeper starts the next serving process for the next call; the sandbox is as it was.
      expect(await exec(a, ['hostname'])).toEqual({ code: 0, out: 'kept' });
      expect(groupServersUnder(ctx.env.paths.dir).map((s) => s.pid)).not.toContain(servers[0].pid);
      const status = await ctx.cri.runtime<{ status: { state: string } }>('PodSandboxStatus', {
        podSandboxId: pod.podSandboxId,
      });
      expect(status.status.state).toBe('SANDBOX_READY');
      expect(sandboxPid(pod.podSandboxId)).toBe(holder);
      // WaitSandbox, resent by the keeper to the new process, ends with the sandbox process.
      await ctx.cri.runtime('StopPodSandbox', { podSandboxId: pod.podSandboxId });
      await waitFor('the pod to read NOTREADY after the takeover', async () => {
        const after = await ctx.cri.runtime<{ status: { state: string } }>('PodSandboxStatus', {
          podSandboxId: pod.podSandboxId,
        });
        return after.status.state === 'SANDBOX_NOTREADY';
      });
      expect(existsSync(`/proc/${holder}/comm`)).toBe(false);
      await ctx.cri.runtime('RemovePodSandbox', { podSandboxId: pod.podSandboxId });
      expect(existsSync(join(sandboxes, pod.podSandboxId))).toBe(false);
    }, 120_000);

    it('`skiff containerd restart` hands the sandbox over: the pod runs on, its Stop ends it', async () => {
      const pod = await ctx.startPod(HANDLER, { name: 'handed', namespaces: OWN_NETWORK }, [
        { name: 'a', command: ['sleep', '1000'], namespaces: OWN_NETWORK },
      ]);
      const holder = sandboxPid(pod.podSandboxId);
      const [old] = groupServersUnder(ctx.env.paths.dir);
      const restart = await promisify(execFile)(process.execPath, [
        RUN,
        'containerd',
        'restart',
        '--state',
        ctx.env.paths.state,
        '--namespace',
        K8S_NS,
      ]);
      expect(restart.stdout).toMatch(
        new RegExp(`^namespace ${K8S_NS}: serving process ${old.pid} handed over to \\d+`),
      );
      expect(await exec(pod.containerIds[0], ['true'])).toEqual({ code: 0, out: '' });
      const status = await ctx.cri.runtime<{ status: { state: string } }>('PodSandboxStatus', {
        podSandboxId: pod.podSandboxId,
      });
      expect(status.status.state).toBe('SANDBOX_READY');
      await ctx.cri.runtime('StopPodSandbox', { podSandboxId: pod.podSandboxId });
      await waitFor('the pod to read NOTREADY after the hand-over', async () => {
        const after = await ctx.cri.runtime<{ status: { state: string } }>('PodSandboxStatus', {
          podSandboxId: pod.podSandboxId,
        });
        return after.status.state === 'SANDBOX_NOTREADY';
      });
      expect(existsSync(`/proc/${holder}/comm`)).toBe(false);
      await ctx.cri.runtime('RemovePodSandbox', { podSandboxId: pod.podSandboxId });
    }, 120_000);

    it('containerd restarting finds the sandbox as it was: the pod READY, its exec served, its Stop and Remove', async () => {
      const pod = await ctx.startPod(HANDLER, { name: 'restarted', namespaces: OWN_NETWORK }, [
        { name: 'a', command: ['sleep', '1000'], namespaces: OWN_NETWORK },
      ]);
      const holder = sandboxPid(pod.podSandboxId);
      await ctx.env.restart();
      await waitFor('the pod READY after the restart', async () => {
        const after = await ctx.cri
          .runtime<{ status: { state: string } }>('PodSandboxStatus', { podSandboxId: pod.podSandboxId })
          .catch(() => undefined);
        return after?.status.state === 'SANDBOX_READY';
      });
      expect(existsSync(`/proc/${holder}/comm`)).toBe(true);
      expect(await exec(pod.containerIds[0], ['true'])).toEqual({ code: 0, out: '' });
      await ctx.cri.runtime('StopPodSandbox', { podSandboxId: pod.podSandboxId });
      await waitFor('the sandbox process to end', () => !existsSync(`/proc/${holder}/comm`));
      await ctx.cri.runtime('RemovePodSandbox', { podSandboxId: pod.podSandboxId });
      expect(existsSync(join(sandboxes, pod.podSandboxId))).toBe(false);
    }, 120_000);

    it("a keeper's death ends its own pod only: containerd's `delete` ends its sandbox process, the other pod runs on", async () => {
      const [dying, living] = await Promise.all(
        ['dying', 'living'].map((name) =>
          ctx.startPod(HANDLER, { name, namespaces: OWN_NETWORK }, [
            { name: 'a', command: ['sleep', '1000'], namespaces: OWN_NETWORK },
          ]),
        ),
      );
      const holder = sandboxPid(dying.podSandboxId);
      const parentOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      const keeper = parentOf(holder);
      expect(parentOf(sandboxPid(living.podSandboxId))).not.toBe(keeper);
      process.kill(keeper, 'SIGKILL');
      await waitFor("the dead keeper's sandbox process to end", () => !existsSync(`/proc/${holder}/comm`));
      await waitFor('its pod to read NOTREADY', async () => {
        const after = await ctx.cri.runtime<{ status: { state: string } }>('PodSandboxStatus', {
          podSandboxId: dying.podSandboxId,
        });
        return after.status.state === 'SANDBOX_NOTREADY';
      });
      expect(await exec(living.containerIds[0], ['true'])).toEqual({ code: 0, out: '' });
      // The serving process let the sandbox go when `delete` told it (nobody sends it a ShutdownSandbox).
      await waitFor("the serving process to forget the dead keeper's sandbox", () =>
        readFileSync(ctx.env.paths.log, 'utf8').includes(
          `sandbox ${dying.podSandboxId} forgotten: its pod keeper died and containerd removed it`,
        ),
      );
      // containerd's `delete` took the dead keeper's pod files too.
      const shm = join(ctx.env.paths.state, 'io.containerd.grpc.v1.cri', 'sandboxes', dying.podSandboxId, 'shm');
      expect(procfs.mountsUnder(shm)).toEqual([]);
      expect(existsSync(join(ctx.env.paths.root, 'io.containerd.grpc.v1.cri', 'sandboxes', dying.podSandboxId))).toBe(
        false,
      );
      for (const pod of [dying, living]) {
        await ctx.cri.runtime('StopPodSandbox', { podSandboxId: pod.podSandboxId });
        await ctx.cri.runtime('RemovePodSandbox', { podSandboxId: pod.podSandboxId });
        expect(existsSync(join(sandboxes, pod.podSandboxId))).toBe(false);
      }
    }, 120_000);

    it("answers kubelet's stats of a pod and its containers: PodSandboxStats, ContainerStats, ListPodSandboxMetrics", async () => {
      // kubelet makes the pod's cgroup and names it; CRI reads the pod's figures there (sandbox_stats_linux.go).
      const parent = `/skiff-sandbox-stats-${process.pid}`;
      const pod = await ctx.startPod(HANDLER, { name: 'stats', namespaces: OWN_NETWORK, cgroupParent: parent }, [
        {
          name: 'a',
          command: ['sh', '-c', 'x=0; while [ $x -lt 20000 ]; do x=$((x+1)); done; exec sleep 1000'],
          namespaces: OWN_NETWORK,
        },
      ]);
      const [a] = pod.containerIds;
      type Value = { value: string };
      const stats = await ctx.cri.runtime<{
        stats: {
          linux: {
            memory: { workingSetBytes: Value };
            network: { defaultInterface: { name: string } };
            containers: Array<{ attributes: { id: string } }>;
          };
        };
      }>('PodSandboxStats', { podSandboxId: pod.podSandboxId });
      expect(Number(stats.stats.linux.memory.workingSetBytes.value)).toBeGreaterThan(0);
      expect(stats.stats.linux.network.defaultInterface.name).toBe('eth0');
      expect(stats.stats.linux.containers.map((c) => c.attributes.id)).toEqual([a]);
      const container = await ctx.cri.runtime<{
        stats: { cpu: { usageCoreNanoSeconds: Value }; memory: { workingSetBytes: Value } };
      }>('ContainerStats', { containerId: a });
      expect(Number(container.stats.cpu.usageCoreNanoSeconds.value)).toBeGreaterThan(0);
      expect(Number(container.stats.memory.workingSetBytes.value)).toBeGreaterThan(0);
      const metrics = await ctx.cri.runtime<{ podMetrics: Array<{ podSandboxId: string; metrics: unknown[] }> }>(
        'ListPodSandboxMetrics',
        {},
      );
      const ours = metrics.podMetrics.find((m) => m.podSandboxId === pod.podSandboxId);
      expect(ours?.metrics.length).toBeGreaterThan(0);
      await ctx.cri.runtime('StopPodSandbox', { podSandboxId: pod.podSandboxId });
      await ctx.cri.runtime('RemovePodSandbox', { podSandboxId: pod.podSandboxId });
      // kubelet removes the pod's cgroup, here in each hierarchy that has it (cgroup v1) or the one (v2).
      for (const dir of ['', ...readdirSync('/sys/fs/cgroup')].map((c) => join('/sys/fs/cgroup', c, parent)))
        if (existsSync(dir)) rmdirSync(dir);
    }, 120_000);

    it("runs a pod of the host's network: its sandbox keeps the host's network and hostname, its IPC its own", async () => {
      const pod = await ctx.startPod(HANDLER, { name: 'host', namespaces: HOST_NETWORK }, [
        { name: 'a', command: ['sleep', '1000'], namespaces: HOST_NETWORK },
      ]);
      const holder = sandboxPid(pod.podSandboxId);
      expect(nsOf(holder, 'net')).toBe(nsOf(process.pid, 'net'));
      expect(nsOf(holder, 'uts')).toBe(nsOf(process.pid, 'uts'));
      expect(nsOf(holder, 'ipc')).not.toBe(nsOf(process.pid, 'ipc'));
      const pid = await containerPid(ctx.cri, pod.containerIds[0]);
      expect(nsOf(pid, 'ipc')).toBe(nsOf(holder, 'ipc'));
      expect(nsOf(pid, 'pid')).not.toBe(nsOf(holder, 'pid'));
      await ctx.cri.runtime('StopPodSandbox', { podSandboxId: pod.podSandboxId });
      await ctx.cri.runtime('RemovePodSandbox', { podSandboxId: pod.podSandboxId });
      expect(existsSync(join(sandboxes, pod.podSandboxId))).toBe(false);
    }, 120_000);
  });
