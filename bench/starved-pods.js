'use strict';
// Pods started at once on a node starved of CPU, through each runtime handler of one
// containerd with CRI (docs/performance.md, "Under starvation"): busy loops, then `atOnce` pods
// per handler, the handlers alternating round by round, while a prober asks State of every
// task already there, every 200 ms, on its shim's socket (CRI's CreateContainer reads the
// sandbox's pid through a State with a 2 s deadline under containerd 1.6/1.7). Shared by the
// host's bench (starvation.bench.js) and the VM guests' (vm/guest.js).
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { podConfig, containerConfig, removePod } = require('../scripts/containerd/cri-pods');
const { taskAddress, taskService } = require('../scripts/containerd/runtime-processes');
const { median } = require('./stats');

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

  add(address, id, service) {
    const client = new this.TtrpcTaskClient(address, service);
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
async function startProbedPod(cri, bundles, prober, handler, name, logDir) {
  const sandboxConfig = podConfig({ name, logDirectory: path.join(logDir, name) });
  const { podSandboxId } = await cri.runtime('RunPodSandbox', { config: sandboxConfig, runtimeHandler: handler });
  prober.add(taskAddress(bundles, 'k8s.io', podSandboxId), podSandboxId, taskService(bundles, 'k8s.io', podSandboxId));
  const config = containerConfig({ name: 'c', command: ['sleep', '100000'] });
  const { containerId } = await cri.runtime('CreateContainer', { podSandboxId, config, sandboxConfig });
  await cri.runtime('StartContainer', { containerId });
  prober.add(taskAddress(bundles, 'k8s.io', containerId), containerId, taskService(bundles, 'k8s.io', containerId));
  return podSandboxId;
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/**
 * The rounds, under `loops` busy loops: per handler, the State answer times, the pods lost (a
 * start that failed), the States that failed and each round's wall time; and a summary of each.
 * `TtrpcTaskClient`: dist's client (the caller loads it from its own checkout).
 */
async function starvedRounds({ cri, bundles, logDir, TtrpcTaskClient, handlers, rounds, atOnce, loops }) {
  const result = Object.fromEntries(handlers.map((h) => [h, { times: [], lost: 0, refused: 0, wall: [] }]));
  const stopLoops = busyLoops(loops);
  try {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? handlers : [...handlers].reverse();
      for (const handler of order) {
        const prober = new StateProber(TtrpcTaskClient);
        const started = nowMs();
        const outcomes = await Promise.allSettled(
          Array.from({ length: atOnce }, (_, i) =>
            startProbedPod(cri, bundles, prober, handler, `starved-${handler}-${round}-${i}`, logDir),
          ),
        );
        const r = result[handler];
        r.wall.push(nowMs() - started);
        await sleep(1000);
        await prober.stop();
        r.times.push(...prober.times);
        r.lost += outcomes.filter((o) => o.status === 'rejected').length;
        r.refused += prober.failures;
        for (const o of outcomes) if (o.status === 'fulfilled') await removePod(cri, o.value).catch(() => undefined);
        // A failed start may leave its sandbox: every pod of the round goes.
        const { items = [] } = await cri.runtime('ListPodSandbox', {});
        for (const pod of items) await removePod(cri, pod.id).catch(() => undefined);
      }
    }
  } finally {
    stopLoops();
  }
  const load = `${loops} busy loops on ${os.cpus().length} cores, ${atOnce} pods at once x ${rounds} per handler`;
  const summary = Object.fromEntries(
    handlers.map((h) => {
      const { times, lost, refused, wall } = result[h];
      return [
        h,
        {
          lost,
          refused,
          p50: median(times),
          p99: percentile(times, 99),
          slowest: Math.max(...times),
          count: times.length,
          wall,
        },
      ];
    }),
  );
  return { load, summary };
}

/** The target: skiff's slowest State within max(2 s, 1.5x the runc shim's slowest). */
function starvationBound(summary) {
  return Math.max(2000, 1.5 * summary.runc.slowest);
}

/** One line per handler, as the benches print them. */
function starvationLines({ load, summary }) {
  const ms = (value) => (value === null || Number.isNaN(value) ? 'none' : `${value.toFixed(0)} ms`);
  return Object.entries(summary).map(
    ([h, s]) =>
      `under ${load} (${h}): ${s.lost} lost, ${s.refused} States failed; State p50 ${ms(s.p50)}, p99 ` +
      `${ms(s.p99)}, slowest ${ms(s.slowest)} of ${s.count}; wall ${s.wall.map((w) => (w / 1000).toFixed(1)).join(', ')} s`,
  );
}

module.exports = { starvedRounds, starvationBound, starvationLines };
