'use strict';
// Kubernetes' path (kubelet -> CRI -> containerd -> shim) through skiff's runtime handler
// against containerd's runc shim, side by side in one private containerd (docs/cri.md):
//  - pod start to container running: RunPodSandbox + CreateContainer + StartContainer of a
//    host-network pod, the handlers alternating round by round (target: skiff <= 1.0x runc);
//  - ten pods started at once, wall time from the first RunPodSandbox to the last container
//    running, the handlers alternating round by round (target: skiff <= 1.0x runc), and
//    skiff's ten once its serving process has left (no skiff pod for 30 s), beside;
//  - memory of 20 pods with 2 containers each: every process the runtime adds for them
//    (shims and their helpers, not the containers; skiff's pod keepers and serving process),
//    RSS summed (target: skiff <= 0.4x runc).
// Needs root, containerd, runc and busybox-static; says so and returns otherwise.
const fs = require('node:fs');
const path = require('node:path');
const { missing, startContainerd, importImages, stopContainerd } = require('./containerd-env');
const { criClient, criReady } = require('../scripts/containerd/cri-client');
const { startPod, removePod } = require('../scripts/containerd/cri-pods');
const {
  groupServerPids,
  runtimeProcesses,
  rssBytes,
  pssBytes,
  taskAddress,
} = require('../scripts/containerd/runtime-processes');
const { median, report } = require('./stats');

const ROUNDS = 30;
const PODS = 20;
const SKIFF_SHIM = path.join(__dirname, '../build/Release/containerd-shim-skiff-v2');
const MB = 1024 * 1024;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const sleeper = (name) => ({ name, command: ['sleep', '100000'] });

async function podStart(cri, logDir, handlers) {
  const times = Object.fromEntries(handlers.map((h) => [h, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? handlers : [...handlers].reverse();
    for (const handler of order) {
      const name = `start-${handler}-${round}`;
      const pod = { name, logDirectory: path.join(logDir, name) };
      const started = await startPod(cri, { handler, pod, containers: [sleeper('c')] });
      times[handler].push(started.ms);
      await removePod(cri, started.podSandboxId);
    }
  }
  for (const handler of handlers) {
    const [first, ...rest] = times[handler];
    console.log(
      `pod start (${handler}): median ${median(rest).toFixed(1)} ms of ${rest.length} ` +
        `(min ${Math.min(...rest).toFixed(1)}, max ${Math.max(...rest).toFixed(1)}); first pod ${first.toFixed(1)} ms`,
    );
  }
  return Object.fromEntries(handlers.map((h) => [h, median(times[h].slice(1))]));
}

const AT_ONCE = 10;
const AT_ONCE_ROUNDS = 4;

async function podsAtOnce(cri, logDir, handlers) {
  const times = Object.fromEntries(handlers.map((h) => [h, []]));
  for (let round = 0; round < AT_ONCE_ROUNDS; round++) {
    const order = round % 2 === 0 ? handlers : [...handlers].reverse();
    for (const handler of order) {
      const started = process.hrtime.bigint();
      const pods = await Promise.all(
        Array.from({ length: AT_ONCE }, (_, i) => {
          const name = `once-${handler}-${round}-${i}`;
          return startPod(cri, {
            handler,
            pod: { name, logDirectory: path.join(logDir, name) },
            containers: [sleeper('c')],
          });
        }),
      );
      times[handler].push(Number(process.hrtime.bigint() - started) / 1e6);
      for (const pod of pods) await removePod(cri, pod.podSandboxId);
    }
  }
  for (const handler of handlers)
    console.log(`${AT_ONCE} pods at once (${handler}): ${times[handler].map((t) => t.toFixed(0)).join(', ')} ms`);
  return Object.fromEntries(handlers.map((h) => [h, median(times[h])]));
}

/**
 * skiff's ten pods at once after its serving process left (no skiff pod for the linger time,
 * 30 s): what a node that ran none meets, printed beside the rounds above, in which the
 * serving process stays up between rounds.
 */
async function podsAtOnceCold(env, cri, logDir) {
  const deadline = Date.now() + 120_000;
  while (groupServerPids('k8s.io', env.address).length > 0) {
    if (Date.now() > deadline) throw new Error("skiff's serving process did not leave within 120 s of its last pod");
    await sleep(500);
  }
  const started = process.hrtime.bigint();
  const pods = await Promise.all(
    Array.from({ length: AT_ONCE }, (_, i) => {
      const name = `cold-skiff-${i}`;
      return startPod(cri, {
        handler: 'skiff',
        pod: { name, logDirectory: path.join(logDir, name) },
        containers: [sleeper('c')],
      });
    }),
  );
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  for (const pod of pods) await removePod(cri, pod.podSandboxId);
  return ms;
}

async function podsMemory(env, cri, logDir, handler) {
  const pods = [];
  for (let i = 0; i < PODS; i++) {
    const name = `mem-${handler}-${i}`;
    const pod = { name, logDirectory: path.join(logDir, name) };
    pods.push(await startPod(cri, { handler, pod, containers: [sleeper('a'), sleeper('b')] }));
  }
  await sleep(1000);
  const addresses = pods.flatMap((p) =>
    [p.podSandboxId, ...p.containerIds].map((id) => taskAddress(env.paths.bundles, 'k8s.io', id) ?? ''),
  );
  const pids = runtimeProcesses(addresses);
  const rss = pids.reduce((sum, pid) => sum + rssBytes(pid), 0);
  const pss = pids.reduce((sum, pid) => sum + pssBytes(pid), 0);
  console.log(
    `memory of ${PODS} pods x 2 containers (${handler}): ${(rss / MB).toFixed(1)} MB RSS, ` +
      `${(pss / MB).toFixed(1)} MB PSS in ${pids.length} processes`,
  );
  for (const pod of pods) await removePod(cri, pod.podSandboxId);
  return rss;
}

async function run() {
  const why = missing();
  if (why !== undefined) {
    console.log(`CRI benchmark not run: ${why}`);
    return;
  }
  const handlers = ['runc'];
  if (fs.existsSync(SKIFF_SHIM)) handlers.push('skiff');
  else console.log(`skiff not measured: ${SKIFF_SHIM} is not built (npm install builds it)`);
  const env = await startContainerd({ cri: true });
  const cri = criClient(env.address);
  try {
    await importImages(env, 'k8s.io');
    await criReady(cri);
    const logDir = path.join(env.paths.dir, 'pod-logs');
    fs.mkdirSync(logDir, { mode: 0o700 });
    const start = await podStart(cri, logDir, handlers);
    const atOnce = await podsAtOnce(cri, logDir, handlers);
    const memory = {};
    for (const handler of handlers) memory[handler] = await podsMemory(env, cri, logDir, handler);
    if (handlers.includes('skiff')) {
      report(
        'pod start, skiff vs runc',
        start.skiff / start.runc,
        `${start.skiff.toFixed(1)} vs ${start.runc.toFixed(1)} ms`,
        '<=',
        1.0,
      );
      report(
        `${AT_ONCE} pods started at once (wall time), skiff vs runc`,
        atOnce.skiff / atOnce.runc,
        `median of ${AT_ONCE_ROUNDS}: ${atOnce.skiff.toFixed(0)} vs ${atOnce.runc.toFixed(0)} ms`,
        '<=',
        1.0,
      );
      const cold = await podsAtOnceCold(env, cri, logDir);
      console.log(
        `${AT_ONCE} pods at once, skiff's serving process gone (beside): ${cold.toFixed(0)} ms, ` +
          `${(cold / atOnce.runc).toFixed(2)}x the runc shim's median`,
      );
      report(
        `memory of ${PODS} pods x 2, skiff vs runc`,
        memory.skiff / memory.runc,
        `${(memory.skiff / MB).toFixed(1)} vs ${(memory.runc / MB).toFixed(1)} MB`,
        '<=',
        0.4,
      );
    }
  } finally {
    cri.close();
    await stopContainerd(env);
  }
}

module.exports = { run };
