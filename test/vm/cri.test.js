'use strict';
// Kubernetes' view (the CRI plugin of the node's containerd, as kubelet speaks it), through the
// runc handler and through skiff's handler configured as `skiff containerd config` printed:
// logs, exec, stats, AppArmor, resources updated in place, OOM kills, stop and removal.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { after, before, describe, it } = require('node:test');
const { criClient } = require('../../scripts/containerd/cri-client');
const { containerConfig, podConfig, removePod, startPod } = require('../../scripts/containerd/cri-pods');
const { servingPid, servingProcesses } = require('../../scripts/containerd/runtime-processes');
const { ADDRESS, OOM_TRIES, SLOW_MS, sh, shimAddress, waitFor } = require('./support');

/**
 * skiff's sandbox mode (no pause container) where the guest's containerd serves it: 2.3, whose
 * install (scripts/vm/install.js) configured the handler `skiff-sandbox` beside `skiff`.
 */
const SANDBOX_CONFIGURED = ['/etc/containerd/config.toml', '/etc/containerd/conf.d/skiff.toml'].some((file) => {
  try {
    return fs.readFileSync(file, 'utf8').includes('runtimes.skiff-sandbox]');
  } catch {
    return false;
  }
});
const HANDLERS = ['runc', 'skiff', ...(SANDBOX_CONFIGURED ? ['skiff-sandbox'] : [])];
/** What each handler showed, compared at the end. */
const seen = {};

/** The unified cgroup directory of a container's init, as the host sees it. */
function cgroupDir(pid) {
  const line = fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8').trim();
  return path.join('/sys/fs/cgroup', line.replace(/^0::/, ''));
}

for (const handler of HANDLERS) {
  describe(`CRI through the ${handler} handler`, { timeout: 20 * SLOW_MS }, () => {
    const cri = criClient(ADDRESS, { deadlineMs: SLOW_MS });
    const logDirectory = fs.mkdtempSync(`/var/log/vm-cri-${handler}-`);
    const pods = [];
    seen[handler] = {};
    const pod = async (name, containers) => {
      const started = await startPod(cri, {
        handler,
        pod: { name: `${name}-${handler}`, uid: `${name}-${handler}-${process.pid}`, logDirectory },
        containers,
      });
      pods.push(started.podSandboxId);
      return started;
    };
    const status = async (containerId) => (await cri.runtime('ContainerStatus', { containerId })).status;
    const pidOf = async (containerId) =>
      JSON.parse((await cri.runtime('ContainerStatus', { containerId, verbose: true })).info.info).pid;

    before(async () => {
      await cri.runtime('Version');
    });
    after(async () => {
      for (const id of pods) await removePod(cri, id).catch(() => undefined);
      cri.close();
    });

    it('runs a pod whose container logs, execs and is stopped and removed', async () => {
      const { podSandboxId, containerIds } = await pod('hello', [
        { name: 'c1', command: ['sh', '-c', 'echo hello from cri; exec sleep 100000'] },
      ]);
      const [id] = containerIds;
      assert.equal((await cri.runtime('PodSandboxStatus', { podSandboxId })).status.state, 'SANDBOX_READY');
      const log = path.join(logDirectory, 'c1_0.log');
      await waitFor(
        'the container log',
        () => fs.existsSync(log) && /stdout F hello from cri\n/.test(fs.readFileSync(log, 'utf8')),
      );
      const exec = await cri.runtime('ExecSync', {
        containerId: id,
        cmd: ['sh', '-c', 'echo out; echo err >&2; exit 3'],
        timeout: 60,
      });
      assert.deepEqual([exec.stdout.toString(), exec.stderr.toString(), exec.exitCode], ['out\n', 'err\n', 3]);
      seen[handler].apparmor = (
        await cri.runtime('ExecSync', { containerId: id, cmd: ['cat', '/proc/self/attr/current'], timeout: 60 })
      ).stdout.toString();
      // sleep is the container's pid 1, which SIGTERM does not end: SIGKILL after the grace period.
      await cri.runtime('StopContainer', { containerId: id, timeout: 2 });
      const stopped = await status(id);
      assert.deepEqual([stopped.state, stopped.exitCode], ['CONTAINER_EXITED', 137]);
      await cri.runtime('RemoveContainer', { containerId: id });
      await removePod(cri, podSandboxId);
      pods.splice(pods.indexOf(podSandboxId), 1);
    });

    it("reports a busy container's stats and changes its resources in place", async () => {
      const { containerIds } = await pod('busy', [
        {
          name: 'busy',
          command: ['sh', '-c', 'while :; do :; done'],
          // CRI has no pids field: kubelet-style clients set pids.max through `unified`.
          resources: {
            memoryLimitInBytes: String(256 * 1024 * 1024),
            cpuPeriod: '100000',
            cpuQuota: '50000',
            unified: { 'pids.max': '100' },
          },
        },
      ]);
      const [id] = containerIds;
      const stats = await waitFor('CPU time in ContainerStats', async () => {
        const { stats: s } = await cri.runtime('ContainerStats', { containerId: id });
        return Number(s.cpu?.usageCoreNanoSeconds?.value ?? 0) > 0 ? s : undefined;
      });
      assert.ok(Number(stats.memory.workingSetBytes.value) > 0, JSON.stringify(stats.memory));
      const dir = cgroupDir(await pidOf(id));
      const read = (file) => fs.readFileSync(path.join(dir, file), 'utf8').trim();
      const limits = () => [read('memory.max'), read('cpu.max'), read('pids.max')];
      assert.deepEqual(limits(), [String(256 * 1024 * 1024), '50000 100000', '100']);
      await cri.runtime('UpdateContainerResources', {
        containerId: id,
        linux: {
          memoryLimitInBytes: String(128 * 1024 * 1024),
          cpuPeriod: '100000',
          cpuQuota: '20000',
          unified: { 'pids.max': '50' },
        },
      });
      assert.deepEqual(limits(), [String(128 * 1024 * 1024), '20000 100000', '50']);
      seen[handler].limits = limits();
    });

    const tries = OOM_TRIES[handler] ?? 1;
    const oomKilled = async (what, run) => {
      for (let attempt = 1; ; attempt += 1) {
        const containerId = await run(attempt);
        const s = await waitFor(`the OOM kill ${what}`, async () => {
          const c = await status(containerId);
          return c.state === 'CONTAINER_EXITED' ? c : undefined;
        });
        if (s.reason === 'OOMKilled' || attempt === tries) return [s.reason, s.exitCode];
        console.log(`# ${handler} handler, OOM kill ${what}, try ${attempt}: reason ${s.reason}, exit ${s.exitCode}`);
      }
    };

    it('reports an OOM kill as OOMKilled, also under a pod-level limit', async () => {
      const bomb = ['sh', '-c', 'x=0123456789abcdef; while :; do x=$x$x; done'];
      const underItsLimit = await oomKilled('under its limit', async (attempt) => {
        const { containerIds } = await pod(`oom${attempt}`, [
          { name: 'bomb', command: bomb, resources: { memoryLimitInBytes: String(32 * 1024 * 1024) } },
        ]);
        return containerIds[0];
      });
      assert.deepEqual(underItsLimit, ['OOMKilled', 137]);
      seen[handler].oom = underItsLimit[0];

      // kubelet makes the pod's cgroup, with the pod's limit, and names it as the sandbox's parent.
      const underThePods = await oomKilled('under the pod limit', async (attempt) => {
        const parent = `/vm-pod-oom-${handler}-${process.pid}-${attempt}`;
        fs.mkdirSync(path.join('/sys/fs/cgroup', parent));
        fs.writeFileSync(path.join('/sys/fs/cgroup', parent, 'memory.max'), String(48 * 1024 * 1024));
        const uid = `pod-oom-${handler}-${process.pid}-${attempt}`;
        const base = podConfig({ name: `pod-oom${attempt}-${handler}`, uid, logDirectory });
        const sandboxConfig = { ...base, linux: { ...base.linux, cgroupParent: parent } };
        const { podSandboxId } = await cri.runtime('RunPodSandbox', { config: sandboxConfig, runtimeHandler: handler });
        pods.push(podSandboxId);
        const { containerId } = await cri.runtime('CreateContainer', {
          podSandboxId,
          config: containerConfig({ name: 'bomb', command: bomb }),
          sandboxConfig,
        });
        await cri.runtime('StartContainer', { containerId });
        return containerId;
      });
      assert.deepEqual(underThePods, ['OOMKilled', 137]);
    });

    it('keeps a container that ignores SIGTERM for its grace period, then kills it', async () => {
      const { containerIds } = await pod('grace', [
        { name: 'stubborn', command: ['sh', '-c', "trap '' TERM; while :; do sleep 1; done"] },
      ]);
      const started = Date.now();
      await cri.runtime('StopContainer', { containerId: containerIds[0], timeout: 3 });
      const s = await status(containerIds[0]);
      assert.deepEqual([s.state, s.exitCode], ['CONTAINER_EXITED', 137]);
      assert.ok(Date.now() - started >= 3000, `stopped after ${Date.now() - started} ms`);
    });
  });
}

const cgroupOf = (pid) => fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8').trim();
const MiB = 1024 * 1024;
/** What the systemd driver's resize left, by handler, compared at the end. */
const systemdSeen = {};

// kubelet's systemd cgroup driver: the pod's parent is a slice, and the CRI plugin writes each
// container's cgroupsPath as slice:prefix:name. containerd's runc shim needs SystemdCgroup in its
// options to pass runc --systemd-cgroup; skiff reads the driver from the path.
for (const handler of ['runc-systemd', 'skiff']) {
  describe(`the systemd cgroup driver through the ${handler} handler`, { timeout: 10 * SLOW_MS }, () => {
    const cri = criClient(ADDRESS, { deadlineMs: SLOW_MS });
    const slice = `vmtest${handler.replace(/[^a-z]/g, '')}.slice`;
    systemdSeen[handler] = {};
    after(() => cri.close());

    /** A pod under the slice with one container; resolves the ids and the container's scope. */
    const podInSlice = async (name, container) => {
      const base = podConfig({
        name: `${name}-${handler}`,
        uid: `${name}-${handler}-${process.pid}`,
        logDirectory: '/var/log',
      });
      const sandboxConfig = { ...base, linux: { ...base.linux, cgroupParent: slice } };
      const { podSandboxId } = await cri.runtime('RunPodSandbox', { config: sandboxConfig, runtimeHandler: handler });
      const { containerId } = await cri.runtime('CreateContainer', {
        podSandboxId,
        config: containerConfig(container),
        sandboxConfig,
      });
      await cri.runtime('StartContainer', { containerId });
      return { podSandboxId, containerId, scope: `cri-containerd-${containerId}.scope` };
    };

    it('runs the pod in a systemd scope under its slice; the shim stays where containerd started it', async () => {
      const { podSandboxId, containerId, scope } = await podInSlice('systemd', {
        name: 'c',
        command: ['sleep', '100000'],
      });
      try {
        const info = JSON.parse((await cri.runtime('ContainerStatus', { containerId, verbose: true })).info.info);
        assert.equal(cgroupOf(info.pid), `0::/${slice}/${scope}`);
        const unit = sh(`systemctl show -p ActiveState --value ${scope}`);
        assert.equal(unit.stdout.trim(), 'active');
        const address = shimAddress('k8s.io', podSandboxId);
        const shim = servingPid(address);
        assert.ok(shim !== undefined, 'a process serving the pod');
        // The runc shim and skiff's pod keeper stay in containerd's cgroup; skiff's serving
        // process is the node daemon's, in its unit's (docs/node-daemon.md).
        assert.equal(cgroupOf(shim), '0::/system.slice/containerd.service');
        if (handler === 'skiff')
          for (const serving of servingProcesses(address, 'k8s.io'))
            assert.equal(cgroupOf(serving), '0::/system.slice/system-skiff.slice/skiff@k8s.io.service');
      } finally {
        await removePod(cri, podSandboxId);
      }
    });

    // With the systemd driver a limit lives twice: in the scope unit's properties and in the
    // cgroup's files. runc sets both, so that systemd, which writes its units' properties back
    // into their cgroups (daemon-reload among other times), keeps the new limits.
    it('resizes memory, CPU and swap in place: the scope and its cgroup as runc sets them, the container running on', async () => {
      const { podSandboxId, containerId, scope } = await podInSlice('resize', {
        name: 'c',
        command: ['sleep', '100000'],
        resources: {
          memoryLimitInBytes: String(256 * MiB),
          memorySwapLimitInBytes: String(512 * MiB),
          cpuPeriod: '100000',
          cpuQuota: '50000',
        },
      });
      try {
        const dir = path.join('/sys/fs/cgroup', slice, scope);
        const files = () =>
          Object.fromEntries(
            ['memory.max', 'memory.swap.max', 'cpu.max'].map((f) => [
              f,
              fs.readFileSync(path.join(dir, f), 'utf8').trim(),
            ]),
          );
        const unit = () => {
          const shown = sh(`systemctl show -p MemoryMax -p MemorySwapMax -p CPUQuotaPerSecUSec ${scope}`);
          assert.equal(shown.status, 0, shown.stderr);
          return Object.fromEntries(
            shown.stdout
              .trim()
              .split('\n')
              .map((line) => line.split('=')),
          );
        };
        // cgroup v2's memory.swap.max is swap alone; CRI's and OCI's swap figure is memory + swap.
        assert.deepEqual(files(), {
          'memory.max': String(256 * MiB),
          'memory.swap.max': String(256 * MiB),
          'cpu.max': '50000 100000',
        });
        await cri.runtime('UpdateContainerResources', {
          containerId,
          linux: {
            memoryLimitInBytes: String(128 * MiB),
            memorySwapLimitInBytes: String(192 * MiB),
            cpuPeriod: '100000',
            cpuQuota: '20000',
          },
        });
        const resized = {
          'memory.max': String(128 * MiB),
          'memory.swap.max': String(64 * MiB),
          'cpu.max': '20000 100000',
        };
        assert.deepEqual(files(), resized);
        const properties = unit();
        assert.deepEqual(properties, {
          MemoryMax: String(128 * MiB),
          MemorySwapMax: String(64 * MiB),
          CPUQuotaPerSecUSec: '200ms',
        });
        const reload = sh('systemctl daemon-reload');
        assert.equal(reload.status, 0, reload.stderr);
        assert.deepEqual(files(), resized, 'the limits after systemctl daemon-reload');
        const { status } = await cri.runtime('ContainerStatus', { containerId });
        assert.equal(status.state, 'CONTAINER_RUNNING');
        const exec = await cri.runtime('ExecSync', { containerId, cmd: ['echo', 'still here'], timeout: 60 });
        assert.deepEqual([exec.stdout.toString(), exec.exitCode], ['still here\n', 0]);
        systemdSeen[handler] = { files: files(), properties, resources: status.resources };
      } finally {
        await removePod(cri, podSandboxId);
      }
    });
  });
}

describe('side by side', () => {
  it('skiff (and its sandbox mode where configured) shows what the runc handler shows (AppArmor profile, updated limits, OOM reason)', () => {
    assert.deepEqual(seen.skiff, seen.runc);
    if (SANDBOX_CONFIGURED) assert.deepEqual(seen['skiff-sandbox'], seen.runc);
    assert.match(seen.runc.apparmor ?? '', /cri-containerd\.apparmor\.d \(enforce\)/);
  });

  it("skiff's systemd-driver resize leaves what runc's does (cgroup files, scope properties, ContainerStatus resources)", () => {
    assert.deepEqual(systemdSeen.skiff, systemdSeen['runc-systemd']);
    assert.equal(systemdSeen.skiff.resources?.linux?.memoryLimitInBytes, String(128 * MiB));
  });
});
