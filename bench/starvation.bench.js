'use strict';
// Pods started at once on a node starved of CPU (docs/performance.md, "Under starvation"),
// through skiff's runtime handler and containerd's runc shim side by side in one private
// containerd with CRI: busy loops on every core (eight per core), then twenty pods at once per
// handler, the handlers alternating round by round. While they start, a prober asks State of
// every task already there, every 200 ms, on its shim's socket (CRI's CreateContainer reads the
// sandbox's pid through a State with a 2 s deadline under containerd 1.6/1.7).
// Measured: pods lost (a start that failed), and each handler's State answer times; the target
// is skiff's slowest within max(2 s, 1.5x the runc shim's slowest). The load is printed beside.
// Needs root, containerd, runc and busybox-static; says so and returns otherwise.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { missing, startNodeDaemon } = require('./containerd-env');
const { withCriContainerd } = require('./cri-env');
const { podConfig, containerConfig, removePod } = require('../scripts/containerd/cri-pods');
const { taskAddress } = require('../scripts/containerd/runtime-processes');
const { median, report } = require('./stats');

const SKIFF_SHIM = path.join(__dirname, '../build/Release/containerd-shim-skiff-v2');
const ROUNDS = 2;
const AT_ONCE = 20;
const LOOPS_PER_CORE = 8;
const PROBE_EVERY_MS = 200;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

/** Busy loops, `count` of them; returns the function that stops them. */
function busyLoops(count) {
  const loops = Array.from({ length: count }, () => spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
  return () => {
    for (const loop of loops) loop.kill('SIGKILL');
  };
}

/** Asks State of every task it is given, every PROBE_EVERY_MS, until stopped; records each answer's time. */
class StateProber {
  constructor(TtrpcTaskClient) {
    this.TtrpcTaskClient = TtrpcTaskClient;
    this.tasks = [];
    this.times = [];
    this.failures = 0;
    this.running = true;
  }

  add(address, id) {
    const client = new this.TtrpcTaskClient(address);
    const task = { client, id, done: this.loop(client, id) };
    this.tasks.push(task);
  }

  async loop(client, id) {
    while (this.running) {
      const asked = nowMs();
      try {
        await client.state({ id, execId: '' });
        this.times.push(nowMs() - asked);
      } catch {
        this.failures++;
      }
      await sleep(PROBE_EVERY_MS);
    }
  }

  async stop() {
    this.running = false;
    await Promise.all(this.tasks.map((t) => t.done));
    for (const t of this.tasks) t.client.close();
  }
}

/** One pod as kubelet starts it, each task handed to the prober as soon as it exists. */
async function startProbedPod(cri, env, prober, handler, name, logDir) {
  const sandboxConfig = podConfig({ name, logDirectory: path.join(logDir, name) });
  const { podSandboxId } = await cri.runtime('RunPodSandbox', { config: sandboxConfig, runtimeHandler: handler });
  prober.add(taskAddress(env.paths.bundles, 'k8s.io', podSandboxId), podSandboxId);
  const config = containerConfig({ name: 'c', command: ['sleep', '100000'] });
  const { containerId } = await cri.runtime('CreateContainer', { podSandboxId, config, sandboxConfig });
  await cri.runtime('StartContainer', { containerId });
  prober.add(taskAddress(env.paths.bundles, 'k8s.io', containerId), containerId);
  return podSandboxId;
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

async function run() {
  const why = missing();
  if (why !== undefined) {
    console.log(`starvation benchmark not run: ${why}`);
    return;
  }
  if (!fs.existsSync(SKIFF_SHIM)) {
    console.log(`starvation benchmark not run: ${SKIFF_SHIM} is not built (npm install builds it)`);
    return;
  }
  const { TtrpcTaskClient } = require('../dist/adapters/shim/outbound/task-client/ttrpc-task-client');
  const handlers = ['runc', 'skiff'];
  const times = { runc: [], skiff: [] };
  const lost = { runc: 0, skiff: 0 };
  const refused = { runc: 0, skiff: 0 };
  const wall = { runc: [], skiff: [] };
  const loops = os.cpus().length * LOOPS_PER_CORE;
  await withCriContainerd(async (env, cri, logDir) => {
    await startNodeDaemon(env, 'k8s.io');
    const stopLoops = busyLoops(loops);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? handlers : [...handlers].reverse();
        for (const handler of order) {
          const prober = new StateProber(TtrpcTaskClient);
          const started = nowMs();
          const outcomes = await Promise.allSettled(
            Array.from({ length: AT_ONCE }, (_, i) =>
              startProbedPod(cri, env, prober, handler, `starved-${handler}-${round}-${i}`, logDir),
            ),
          );
          wall[handler].push(nowMs() - started);
          await sleep(1000);
          await prober.stop();
          times[handler].push(...prober.times);
          lost[handler] += outcomes.filter((o) => o.status === 'rejected').length;
          refused[handler] += prober.failures;
          for (const o of outcomes) if (o.status === 'fulfilled') await removePod(cri, o.value).catch(() => undefined);
          // A failed start may leave its sandbox: every pod of the round goes.
          const { items = [] } = await cri.runtime('ListPodSandbox', {});
          for (const pod of items) await removePod(cri, pod.id).catch(() => undefined);
        }
      }
    } finally {
      stopLoops();
    }
  });
  for (const handler of handlers) {
    const t = times[handler];
    console.log(
      `${AT_ONCE} pods at once x ${ROUNDS} under ${loops} busy loops on ${os.cpus().length} cores (${handler}): ` +
        `${lost[handler]} lost, ${refused[handler]} States failed; State p50 ${median(t).toFixed(0)} ms, p99 ${percentile(t, 99).toFixed(0)} ms, ` +
        `slowest ${Math.max(...t).toFixed(0)} ms of ${t.length}; wall ${wall[handler].map((w) => (w / 1000).toFixed(1)).join(', ')} s`,
    );
  }
  const bound = Math.max(2000, 1.5 * Math.max(...times.runc));
  report(
    `slowest State under starvation, skiff vs max(2 s, 1.5x runc's slowest)`,
    Math.max(...times.skiff) / bound,
    `${Math.max(...times.skiff).toFixed(0)} vs ${bound.toFixed(0)} ms (runc's slowest ${Math.max(...times.runc).toFixed(0)} ms); ` +
      `load: ${loops} busy loops on ${os.cpus().length} cores`,
    '<=',
    1.0,
  );
  if (lost.skiff > 0 || lost.runc > 0)
    console.log(`MISS: pods lost under starvation: skiff ${lost.skiff}, runc ${lost.runc}`);
}

module.exports = { run };
