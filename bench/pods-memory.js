'use strict';
// The memory of pods as a node runs them (cri.bench.js, sandbox.bench.js): `count` pods of two
// sleeping containers through one handler, then the RSS and PSS of every process the runtime
// adds for them (shims and their helpers, skiff's pod keepers, their sandbox processes and the
// serving process: runtimeProcesses), and apart from those the pods' pause containers.
const fs = require('node:fs');
const path = require('node:path');
const { startPod, removePod } = require('../scripts/containerd/cri-pods');
const { runtimeProcesses, rssBytes, pssBytes, taskAddress } = require('../scripts/containerd/runtime-processes');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const sleeper = (name) => ({ name, command: ['sleep', '100000'] });

/** Live pids whose cgroup is the pod's sandbox container's (`/k8s.io/<id>`, CRI's path without a cgroup parent). */
function pausePids(podSandboxId) {
  return fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .map(Number)
    .filter((pid) => {
      try {
        return fs
          .readFileSync(`/proc/${pid}/cgroup`, 'utf8')
          .split('\n')
          .some((line) => line.endsWith(`/k8s.io/${podSandboxId}`));
      } catch {
        return false;
      }
    });
}

/**
 * Starts the pods, measures, removes them. Resolves { runtime, pause } (RSS bytes), pss (both
 * together) and the number of runtime and pause processes.
 */
async function podsMemory(env, cri, logDir, handler, count) {
  const pods = [];
  for (let i = 0; i < count; i++) {
    const name = `mem-${handler}-${i}`;
    pods.push(
      await startPod(cri, {
        handler,
        pod: { name, logDirectory: path.join(logDir, name) },
        containers: [sleeper('a'), sleeper('b')],
      }),
    );
  }
  await sleep(1000);
  const addresses = pods.flatMap((p) =>
    [p.podSandboxId, ...p.containerIds].map((id) => taskAddress(env.paths.bundles, 'k8s.io', id) ?? ''),
  );
  const runtime = runtimeProcesses(addresses);
  const pause = pods.flatMap((p) => pausePids(p.podSandboxId));
  const sum = (pids, bytes) => pids.reduce((total, pid) => total + bytes(pid), 0);
  const measured = {
    runtime: sum(runtime, rssBytes),
    pause: sum(pause, rssBytes),
    pss: sum([...runtime, ...pause], pssBytes),
    runtimeProcesses: runtime.length,
    pauseProcesses: pause.length,
  };
  for (const pod of pods) await removePod(cri, pod.podSandboxId);
  return measured;
}

module.exports = { podsMemory };
