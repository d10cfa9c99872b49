'use strict';
// Containers through one skiff serving process under a private containerd with the CRI
// plugin, in the CRI namespace (k8s.io) so that ctr's and the CRI plugin's containers share
// the serving process of that namespace: in turn, `ctr run --rm` of a container that exits
// 0, `ctr run -d` of one killed with SIGKILL (`ctr task rm -f`) and removed, and the next
// attempt of a crash-looping CRI container (exit 1, then removed once the next attempt has
// run, as kubelet keeps the last dead one). The serving process's descriptors, threads and
// RSS are sampled between containers. Shared by the test (test/e2e/cri/cri-soak.test.ts)
// and the benchmark (bench/soak.bench.js); see docs/reliability.md.
const fs = require('node:fs');
const path = require('node:path');
const { BUSYBOX_IMAGE } = require('../busybox-image');
const { describe } = require('./ctr');
const { startPod, containerConfig } = require('./cri-pods');
const { servingPid, servingProcesses, taskAddress, rssBytes, fdCount } = require('./runtime-processes');

const NS = 'k8s.io';
const RUNTIME = 'io.containerd.skiff.v2';
const HANDLER = 'skiff';
const EXIT_TIMEOUT_MS = 15_000;

/** Threads of a process (/proc/<pid>/status), 0 once it is gone. */
function threadCount(pid) {
  try {
    return Number(/^Threads:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
  } catch {
    return 0;
  }
}

/**
 * One sample of the serving process `pid` after `containers` containers, and of the
 * descriptors of `podShim`, the soak pod's own process (skiff's pod keeper, which launches the
 * crash-looping attempts) when given.
 */
function sample(pid, containers, podShim) {
  const s = { containers, fds: fdCount(pid), threads: threadCount(pid), rssMiB: rssBytes(pid) / 2 ** 20 };
  return podShim === undefined ? s : { ...s, podShimFds: fdCount(podShim) };
}

async function ctrOk(env, args) {
  const result = await env.ctr(NS, args, { timeoutMs: 30_000 });
  if (result.status !== 0) throw new Error(describe(args, result));
}

async function waitExited(cri, containerId) {
  const deadline = Date.now() + EXIT_TIMEOUT_MS;
  for (;;) {
    const { status } = await cri.runtime('ContainerStatus', { containerId });
    if (status.state === 'CONTAINER_EXITED') return status;
    if (Date.now() > deadline)
      throw new Error(`CRI container ${containerId.slice(0, 12)} did not exit (${status.state})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Runs `containers` containers (options: env, the PrivateContainerd with CRI and images in
 * k8s.io; cri, its CRI client; logDir; every, the sampling period in containers; onSample,
 * called with each sample and the serving pid, and awaited).
 * Resolves { samples, servingPids } where servingPids are the pids that served, one if all
 * went through one process. The pod it made is left for the caller's teardown.
 */
async function soak({ env, cri, logDir, containers, every, onSample = () => undefined }) {
  const podLogs = path.join(logDir, 'soak');
  fs.mkdirSync(podLogs, { recursive: true, mode: 0o700 });
  const crash = (attempt) => ({ name: 'crash', attempt, command: ['sh', '-c', `echo attempt ${attempt}; exit 1`] });
  const pod = await startPod(cri, {
    handler: HANDLER,
    pod: { name: 'soak', logDirectory: podLogs },
    containers: [crash(0)],
  });
  // skiff's serving process, behind the pod keeper the task's address names.
  const servingOf = (id) => {
    const servers = servingProcesses(taskAddress(env.paths.bundles, NS, id) ?? '', NS);
    return servers.length === 1 ? servers[0] : undefined;
  };
  const pid = servingOf(pod.podSandboxId);
  const podShim = servingPid(taskAddress(env.paths.bundles, NS, pod.podSandboxId) ?? '');
  if (pid === undefined) throw new Error('no skiff serving process found for the soak pod');
  const servingPids = new Set([pid]);
  const samples = [sample(pid, 1, podShim)];
  await onSample(samples[0], pid);
  let lastDead = pod.containerIds[0];
  let attempt = 0;
  for (let done = 1; done < containers; done++) {
    const id = `soak-${process.pid}-${done}`;
    const kind = done % 3;
    if (kind === 0) {
      await ctrOk(env, ['run', '--rm', '--runtime', RUNTIME, BUSYBOX_IMAGE, id, 'true']);
    } else if (kind === 1) {
      await ctrOk(env, ['run', '-d', '--runtime', RUNTIME, BUSYBOX_IMAGE, id, 'sleep', '1000']);
      servingPids.add(servingOf(id));
      await ctrOk(env, ['task', 'rm', '-f', id]);
      await ctrOk(env, ['container', 'rm', id]);
    } else {
      const request = {
        podSandboxId: pod.podSandboxId,
        config: containerConfig(crash(++attempt)),
        sandboxConfig: pod.sandboxConfig,
      };
      const { containerId } = await cri.runtime('CreateContainer', request);
      await cri.runtime('StartContainer', { containerId });
      const status = await waitExited(cri, containerId);
      if (status.exitCode !== 1) throw new Error(`CRI attempt ${attempt} exited ${status.exitCode}, not 1`);
      await cri.runtime('RemoveContainer', { containerId: lastDead });
      lastDead = containerId;
    }
    if ((done + 1) % every === 0) {
      const s = sample(pid, done + 1, podShim);
      samples.push(s);
      await onSample(s, pid);
    }
  }
  return { samples, servingPids: [...servingPids] };
}

/** One line for a sample, as the test and the benchmark print it. */
function describeSample(s) {
  const podShim = s.podShimFds === undefined ? '' : `; the pod's keeper: fds ${s.podShimFds}`;
  return `${String(s.containers).padStart(5)} containers: fds ${s.fds}, threads ${s.threads}, RSS ${s.rssMiB.toFixed(1)} MiB${podShim}`;
}

module.exports = { soak, sample, describeSample };
