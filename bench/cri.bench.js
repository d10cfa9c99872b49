'use strict';
// Kubernetes' path (kubelet -> CRI -> containerd -> shim) through skiff's runtime handler
// against containerd's runc shim, side by side in one private containerd (docs/cri.md):
//  - pod start to container running: RunPodSandbox + CreateContainer + StartContainer of a
//    host-network pod, the handlers alternating round by round (target: skiff <= 1.0x runc);
//  - ten pods started at once, wall time from the first RunPodSandbox to the last container
//    running, the handlers alternating round by round (target: skiff <= 1.0x runc), and
//    skiff's ten on a node that ran no skiff pod, its unit up (target: <= 1.0x runc's median)
//    and without the unit (beside);
//  - the node's first pod through each, each on a fresh containerd of its own, skiff's with its
//    node daemon up (target: <= 1.0x);
//  - memory of 20 pods with 2 containers each: every process the runtime adds for them
//    (shims and their helpers, not the containers; skiff's pod keepers and serving process),
//    RSS summed (target: skiff <= 0.4x runc).
// Needs root, containerd, runc and busybox-static; says so and returns otherwise.
const fs = require('node:fs');
const path = require('node:path');
const { missing, startNodeDaemon, firstsOnFreshNodes } = require('./containerd-env');
const { withCriContainerd } = require('./cri-env');
const { startPod, removePod } = require('../scripts/containerd/cri-pods');
const { groupServerPids } = require('../scripts/containerd/runtime-processes');
const { podsMemory } = require('./pods-memory');
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

/** Ten skiff pods started at once; resolves the wall time in ms. */
async function tenSkiffPods(cri, logDir, prefix) {
  const started = process.hrtime.bigint();
  const pods = await Promise.all(
    Array.from({ length: AT_ONCE }, (_, i) => {
      const name = `${prefix}-${i}`;
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

/**
 * skiff's ten pods at once on a node that has run no skiff pod, in a containerd of their own:
 * first without the unit (the pods start the serving process: beside), then with the node
 * daemon started (docs/node-daemon.md), whose new serving process has served no pod yet.
 */
function podsAtOnceFirst() {
  return withCriContainerd(async (env, cri, logDir) => {
    const bare = await tenSkiffPods(cri, logDir, 'bare');
    const [started] = groupServerPids('k8s.io', env.address);
    const daemon = await startNodeDaemon(env, 'k8s.io');
    const deadline = Date.now() + 30_000;
    while (groupServerPids('k8s.io', env.address).some((pid) => pid === started)) {
      if (Date.now() > deadline) throw new Error('the node daemon did not take the serving over within 30 s');
      await sleep(20);
    }
    const withUnit = await tenSkiffPods(cri, logDir, 'unit');
    daemon.kill('SIGTERM');
    return { bare, withUnit };
  });
}

/** Rounds of the node's first pod per handler, each on a fresh containerd of its own. */
const FIRST_ROUNDS = 2;

/**
 * The node's first pod through each handler, each on a fresh containerd of its own (so
 * containerd's own first-pod costs fall on both alike), skiff's with its node daemon up as its
 * unit starts it at boot. Resolves { handler: [ms, ...] }.
 */
function firstPods(handlers) {
  return firstsOnFreshNodes(handlers, FIRST_ROUNDS, (handler) =>
    withCriContainerd(async (env, cri, logDir) => {
      if (handler === 'skiff') await startNodeDaemon(env, 'k8s.io');
      const name = `first-${handler}`;
      const started = await startPod(cri, {
        handler,
        pod: { name, logDirectory: path.join(logDir, name) },
        containers: [sleeper('c')],
      });
      await removePod(cri, started.podSandboxId);
      return started.ms;
    }),
  );
}

async function memoryOf(env, cri, logDir, handler) {
  const m = await podsMemory(env, cri, logDir, handler, PODS);
  console.log(
    `memory of ${PODS} pods x 2 containers (${handler}): ${(m.runtime / MB).toFixed(1)} MB RSS, ` +
      `${(m.pss / MB).toFixed(1)} MB PSS in ${m.runtimeProcesses} processes ` +
      `(the pause containers beside: ${(m.pause / MB).toFixed(1)} MB RSS in ${m.pauseProcesses})`,
  );
  return m.runtime;
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
  const first = await firstPods(handlers);
  await withCriContainerd(async (env, cri, logDir) => {
    if (handlers.includes('skiff')) await startNodeDaemon(env, 'k8s.io');
    const start = await podStart(cri, logDir, handlers);
    const atOnce = await podsAtOnce(cri, logDir, handlers);
    const memory = {};
    for (const handler of handlers) memory[handler] = await memoryOf(env, cri, logDir, handler);
    if (handlers.includes('skiff')) {
      const [skiff, runc] = [median(first.skiff), median(first.runc)];
      const each = (handler) => first[handler].map((t) => t.toFixed(0)).join(', ');
      report(
        "the node's first pod, skiff (its unit up) vs runc",
        skiff / runc,
        `${skiff.toFixed(0)} vs ${runc.toFixed(0)} ms, median of ${FIRST_ROUNDS} fresh nodes each (skiff ${each('skiff')}; runc ${each('runc')})`,
        '<=',
        1.0,
      );
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
      const fresh = await podsAtOnceFirst();
      console.log(
        `${AT_ONCE} pods at once on a node that ran no skiff pod, without the unit (beside): ${fresh.bare.toFixed(0)} ms, ` +
          `${(fresh.bare / atOnce.runc).toFixed(2)}x the runc shim's median`,
      );
      report(
        `${AT_ONCE} pods at once on a node that ran no skiff pod (its unit up), skiff vs runc's median`,
        fresh.withUnit / atOnce.runc,
        `${fresh.withUnit.toFixed(0)} vs ${atOnce.runc.toFixed(0)} ms`,
        '<=',
        1.0,
      );
      report(
        `memory of ${PODS} pods x 2, skiff vs runc`,
        memory.skiff / memory.runc,
        `${(memory.skiff / MB).toFixed(1)} vs ${(memory.runc / MB).toFixed(1)} MB`,
        '<=',
        0.4,
      );
    }
  });
}

module.exports = { run };
