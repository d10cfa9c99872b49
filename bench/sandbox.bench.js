'use strict';
// Pods without a pause container (docs/cri.md, "The sandbox mode"): skiff's handler in the
// sandbox mode (`sandboxer = "shim"`, the pod keeper's skiff-sandbox holding the pod's
// namespaces) against containerd's runc shim and against skiff's own handler with the pause
// container, side by side in one private containerd 2.3.4 (the CRI that serves a shim's
// Sandbox API), host-network pods, skiff's node daemon up, the handlers alternating round by round:
//  - RunPodSandbox alone (target: the sandbox mode <= 0.5x runc);
//  - pod start to its container running (target <= 0.6x runc);
//  - ten pods at once, wall time (target <= 0.6x runc);
//  - memory of 20 pods with 2 containers: what the runtime adds for them (as cri.bench.js
//    counts it) and what holds each pod's namespaces (the pause containers' processes, or the
//    skiff-sandbox processes, which the first count takes in as the keepers' children); target:
//    the sandbox mode below skiff's pause mode by at least the pause containers' share.
// Needs root, containerd, runc, busybox-static and the containerd 2.3.4 archive (lts.js).
const path = require('node:path');
const { missing, startNodeDaemon } = require('./containerd-env');
const { withCriContainerd } = require('./cri-env');
const { podConfig, startPod, removePod } = require('../scripts/containerd/cri-pods');
const { podsMemory } = require('./pods-memory');
const { ltsContainerd } = require('../scripts/containerd/lts');
const { median, report } = require('./stats');

const SANDBOX = 'skiff-sandbox';
const HANDLERS = ['runc', 'skiff', SANDBOX];
const ROUNDS = 20;
const AT_ONCE = 10;
const AT_ONCE_ROUNDS = 3;
const PODS = 20;
const MB = 1024 * 1024;
const sleeper = (name) => ({ name, command: ['sleep', '100000'] });
const ms = (since) => Number(process.hrtime.bigint() - since) / 1e6;

/** Each handler's order in round `round`: rotated, so none is always first. */
const orderOf = (round) => HANDLERS.map((_, i) => HANDLERS[(i + round) % HANDLERS.length]);

/** RunPodSandbox alone, and the whole pod start, per handler: medians of ROUNDS. */
async function podStarts(cri, logDir) {
  const sandbox = Object.fromEntries(HANDLERS.map((h) => [h, []]));
  const whole = Object.fromEntries(HANDLERS.map((h) => [h, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const handler of orderOf(round)) {
      const name = `run-${handler}-${round}`;
      const pod = { name, logDirectory: path.join(logDir, name) };
      const started = process.hrtime.bigint();
      const { podSandboxId } = await cri.runtime('RunPodSandbox', {
        config: podConfig(pod),
        runtimeHandler: handler,
      });
      sandbox[handler].push(ms(started));
      await removePod(cri, podSandboxId);
      const full = await startPod(cri, { handler, pod: { ...pod, name: `${name}-pod` }, containers: [sleeper('c')] });
      whole[handler].push(full.ms);
      await removePod(cri, full.podSandboxId);
    }
  }
  // Round 1 holds each handler's first pod on this node (the RunPodSandbox alone, with skiff's
  // serving process up as the node daemon starts it but having served none): beside the medians,
  // which include it.
  for (const handler of HANDLERS)
    console.log(
      `RunPodSandbox (${handler}): median ${median(sandbox[handler]).toFixed(1)} ms; ` +
        `pod start: median ${median(whole[handler]).toFixed(1)} ms, of ${ROUNDS}; ` +
        `round 1: RunPodSandbox ${sandbox[handler][0].toFixed(1)} ms (the node's first), pod start ${whole[handler][0].toFixed(1)} ms`,
    );
  const medians = (times) => Object.fromEntries(HANDLERS.map((h) => [h, median(times[h])]));
  return { sandbox: medians(sandbox), whole: medians(whole) };
}

async function podsAtOnce(cri, logDir) {
  const times = Object.fromEntries(HANDLERS.map((h) => [h, []]));
  for (let round = 0; round < AT_ONCE_ROUNDS; round++) {
    for (const handler of orderOf(round)) {
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
      times[handler].push(ms(started));
      for (const pod of pods) await removePod(cri, pod.podSandboxId);
    }
  }
  for (const handler of HANDLERS)
    console.log(`${AT_ONCE} pods at once (${handler}): ${times[handler].map((t) => t.toFixed(0)).join(', ')} ms`);
  return Object.fromEntries(HANDLERS.map((h) => [h, median(times[h])]));
}

/** 20 pods' memory through `handler`, printed: the runtime's processes and the pause containers'. */
async function memoryOf(env, cri, logDir, handler) {
  const m = await podsMemory(env, cri, logDir, handler, PODS);
  console.log(
    `memory of ${PODS} pods x 2 containers (${handler}): ${((m.runtime + m.pause) / MB).toFixed(1)} MB RSS ` +
      `(${(m.pss / MB).toFixed(1)} MB PSS) in ${m.runtimeProcesses + m.pauseProcesses} processes ` +
      `(the runtime's ${(m.runtime / MB).toFixed(1)}, pause containers' ${(m.pause / MB).toFixed(1)})`,
  );
  return m;
}

async function run() {
  const why = missing() ?? ltsContainerd().missing;
  if (why !== undefined) {
    console.log(`sandbox-mode benchmark not run: ${why}`);
    return;
  }
  await withCriContainerd(
    async (env, cri, logDir) => {
      await startNodeDaemon(env, 'k8s.io');
      const starts = await podStarts(cri, logDir);
      const atOnce = await podsAtOnce(cri, logDir);
      const memory = {};
      for (const handler of HANDLERS) memory[handler] = await memoryOf(env, cri, logDir, handler);
      const vs = (figures, unit = 'ms') => HANDLERS.map((h) => `${h} ${figures[h].toFixed(1)}`).join(', ') + ` ${unit}`;
      report(
        'RunPodSandbox, the sandbox mode vs runc',
        starts.sandbox[SANDBOX] / starts.sandbox.runc,
        vs(starts.sandbox),
        '<=',
        0.5,
      );
      report(
        'pod start, the sandbox mode vs runc',
        starts.whole[SANDBOX] / starts.whole.runc,
        vs(starts.whole),
        '<=',
        0.6,
      );
      report(`${AT_ONCE} pods at once, the sandbox mode vs runc`, atOnce[SANDBOX] / atOnce.runc, vs(atOnce), '<=', 0.6);
      const total = (h) => memory[h].runtime + memory[h].pause;
      const saved = total('skiff') - total(SANDBOX);
      report(
        `memory of ${PODS} pods x 2: what the sandbox mode saves against skiff's pause mode, vs the pause containers' share`,
        saved / memory.skiff.pause,
        `${(saved / MB).toFixed(1)} MB saved (${(total('skiff') / MB).toFixed(1)} -> ${(total(SANDBOX) / MB).toFixed(1)}), ` +
          `pause containers ${(memory.skiff.pause / MB).toFixed(1)} MB; runc ${(total('runc') / MB).toFixed(1)} MB`,
        '>=',
        1.0,
      );
    },
    { lts: true, sandboxHandler: SANDBOX },
  );
}

module.exports = { run };
