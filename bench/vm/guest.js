'use strict';
// The containerd and CRI figures of bench/vm.bench.js, measured inside a VM bed guest
// (docs/vm.md) against the node's own containerd: skiff beside containerd's runc shim, the two
// alternating round by round. Prints one JSON line (`FIGURES {...}`) for the host to report.
// Under emulation every time is many times the host's: the ratios are what count.
const fs = require('node:fs');
const os = require('node:os');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { criClient } = require('../../scripts/containerd/cri-client');
const { startPod, removePod } = require('../../scripts/containerd/cri-pods');
const { ctr } = require('../../scripts/containerd/ctr');
const {
  groupServerPids,
  runtimeProcesses,
  rssBytes,
  servingProcesses,
  standbyPids,
  taskAddress,
} = require('../../scripts/containerd/runtime-processes');
const { median } = require('../stats');
const { starvedRounds } = require('../starved-pods');

const ADDRESS = '/run/containerd/containerd.sock';
const BUNDLES = '/run/containerd/io.containerd.runtime.v2.task';

const IMAGE = 'docker.io/library/skiff-busybox:latest';
const RUNTIMES = { runc: 'io.containerd.runc.v2', skiff: 'io.containerd.skiff.v2' };
const HANDLERS = ['runc', 'skiff'];
const ROUNDS = Number(process.env.SKIFF_VM_BENCH_ROUNDS || 7);
const PODS = 20;
const AT_ONCE = 10;
// Each round of ten pods takes ~25 s under emulation: three, not ROUNDS.
const AT_ONCE_ROUNDS = 3;
// Starvation as the bed's check saw the pid-0 failure: three busy loops per vCPU, five pods at once.
const STARVED = { loopsPerCore: 3, atOnce: 5, rounds: 2 };
const SLOW = { timeoutMs: 300_000 };

async function ok(ns, args) {
  const r = await ctr(ADDRESS, ns, args, SLOW);
  if (r.status !== 0) throw new Error(`ctr ${args.join(' ')}: ${r.stderr.trim()}`);
  return r;
}

/** `ctr run --rm ... true`: the first of a fresh namespace apart, then the median of the rest. */
async function ctrRun() {
  const times = { runc: [], skiff: [] };
  const first = {};
  for (const name of HANDLERS) {
    const ns = `bench-${name}-${process.pid}`;
    await ok(ns, ['image', 'import', '/run/skiff-vm/busybox.tar']);
  }
  for (let round = 0; round <= ROUNDS; round++) {
    for (const name of round % 2 === 0 ? HANDLERS : [...HANDLERS].reverse()) {
      const ns = `bench-${name}-${process.pid}`;
      const r = await ok(ns, ['run', '--rm', '--runtime', RUNTIMES[name], IMAGE, `r${round}`, 'true']);
      if (round === 0) first[name] = r.ms;
      else times[name].push(r.ms);
    }
  }
  return Object.fromEntries(HANDLERS.map((h) => [h, { median: median(times[h]), first: first[h] }]));
}

/**
 * A new serving process for k8s.io that has served nothing, as at boot: `systemctl restart` of
 * the node daemon (docs/node-daemon.md), which holds no task between the bench's steps.
 */
async function freshUnit() {
  const restart = spawnSync('systemctl', ['restart', 'skiff@k8s.io'], { encoding: 'utf8' });
  if (restart.status !== 0) throw new Error(`systemctl restart skiff@k8s.io: ${restart.stderr.trim()}`);
  await waitUntil("the unit's serving process", () => groupServerPids('k8s.io', ADDRESS).length === 1, 180_000);
}

/**
 * The node's first pod and first `ctr run` in k8s.io, each handler's, skiff's with its unit up
 * as at boot (a serving process that has served nothing); before the first ctr run the unit is
 * restarted. The handler that goes first pays containerd's own first-pod costs (its CNI's
 * bridge and chains, its first sandbox): in the lts guest 1.3-2.4 s of the node's first pod,
 * whichever handler it was (2026-12-04). So the bench boots twice (bench/vm.bench.js), skiff
 * first (`order` skiff) and the runc shim first (SKIFF_BENCH_FIRST=runc), and compares each
 * handler's first where it was the node's first.
 */
async function firsts(cri, logDir, order = ['skiff', 'runc']) {
  // The node's first pod comes when kubelet does, which the unit is ordered before: `systemctl
  // start` of a unit still starting returns once it is READY (its Node serving), as kubelet's start waits.
  const up = spawnSync('systemctl', ['start', 'skiff@k8s.io'], { encoding: 'utf8' });
  if (up.status !== 0) throw new Error(`systemctl start skiff@k8s.io: ${up.stderr.trim()}`);
  const pod = {};
  for (const handler of order) {
    const name = `first-${handler}`;
    const started = await startPod(cri, {
      handler,
      pod: { name, logDirectory: path.join(logDir, name) },
      containers: [{ name: 'c', command: ['sleep', '100000'] }],
    });
    pod[handler] = started.ms;
    await removePod(cri, started.podSandboxId);
  }
  await freshUnit();
  const run = {};
  for (const handler of order)
    run[handler] = (
      await ok('k8s.io', ['run', '--rm', '--runtime', RUNTIMES[handler], IMAGE, `first-${handler}`, 'true'])
    ).ms;
  return { order, pod, run };
}

async function podStart(cri, logDir) {
  const times = { runc: [], skiff: [] };
  const first = {};
  for (let round = 0; round <= ROUNDS; round++) {
    for (const handler of round % 2 === 0 ? HANDLERS : [...HANDLERS].reverse()) {
      const name = `start-${handler}-${round}`;
      const started = await startPod(cri, {
        handler,
        pod: { name, logDirectory: path.join(logDir, name) },
        containers: [{ name: 'c', command: ['sleep', '100000'] }],
      });
      if (round === 0) first[handler] = started.ms;
      else times[handler].push(started.ms);
      await removePod(cri, started.podSandboxId);
    }
  }
  return Object.fromEntries(HANDLERS.map((h) => [h, { median: median(times[h]), first: first[h] }]));
}

/** Ten pods of `handler` started at once: resolves the wall time and removes them. */
async function tenPods(cri, logDir, handler, tag) {
  const started = process.hrtime.bigint();
  const pods = await Promise.all(
    Array.from({ length: AT_ONCE }, (_, i) =>
      startPod(cri, {
        handler,
        pod: { name: `once-${handler}-${tag}-${i}`, logDirectory: path.join(logDir, `once-${handler}-${tag}-${i}`) },
        containers: [{ name: 'c', command: ['sleep', '100000'] }],
      }),
    ),
  );
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  for (const pod of pods) await removePod(cri, pod.podSandboxId);
  return ms;
}

/**
 * Ten pods started at once: first skiff's on a serving process that has served nothing (the
 * unit restarted: what a node that has run no skiff pod meets), then, on a node that runs a pod
 * of each handler (as a working node does), AT_ONCE_ROUNDS rounds, the handlers alternating,
 * the median.
 */
async function atOnce(cri, logDir) {
  await freshUnit();
  const fresh = await tenPods(cri, logDir, 'skiff', 'fresh');
  const times = { runc: [], skiff: [] };
  const resident = [];
  for (const handler of HANDLERS) {
    const pod = { name: `resident-${handler}`, logDirectory: path.join(logDir, `resident-${handler}`) };
    resident.push(await startPod(cri, { handler, pod, containers: [{ name: 'c', command: ['sleep', '100000'] }] }));
  }
  for (let round = 0; round < AT_ONCE_ROUNDS; round++) {
    for (const handler of round % 2 === 0 ? HANDLERS : [...HANDLERS].reverse())
      times[handler].push(await tenPods(cri, logDir, handler, round));
  }
  for (const pod of resident) await removePod(cri, pod.podSandboxId);
  return { runc: median(times.runc), skiff: median(times.skiff), skiffFresh: fresh };
}

async function waitUntil(what, done, timeoutMs, stepMs = 500) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
}

/** Pods at once per handler under busy loops, States probed meanwhile (bench/starved-pods.js). */
async function starvation(cri, logDir) {
  const { TtrpcTaskClient } = require('../../dist/adapters/shim/outbound/task-client/ttrpc-task-client');
  return starvedRounds({
    cri,
    bundles: BUNDLES,
    logDir,
    TtrpcTaskClient,
    handlers: HANDLERS,
    rounds: STARVED.rounds,
    atOnce: STARVED.atOnce,
    loops: STARVED.loopsPerCore * os.cpus().length,
  });
}

async function memory(cri, logDir) {
  const result = {};
  for (const handler of HANDLERS) {
    const pods = [];
    for (let i = 0; i < PODS; i++) {
      const containers = [
        { name: 'a', command: ['sleep', '100000'] },
        { name: 'b', command: ['sleep', '100000'] },
      ];
      pods.push(
        await startPod(cri, {
          handler,
          pod: { name: `mem-${handler}-${i}`, logDirectory: path.join(logDir, `mem-${handler}-${i}`) },
          containers,
        }),
      );
    }
    const addresses = pods
      .flatMap((p) => [p.podSandboxId, ...p.containerIds].map((id) => taskAddress(BUNDLES, 'k8s.io', id)))
      .filter(Boolean);
    const pids = runtimeProcesses(addresses);
    result[handler] = {
      rssMB: pids.reduce((sum, pid) => sum + (rssBytes(pid) ?? 0), 0) / 1024 / 1024,
      processes: pids.length,
    };
    for (const pod of pods) await removePod(cri, pod.podSandboxId);
  }
  return result;
}

/** A process's CPU time so far (utime + stime, in clock ticks). */
function cpuTicks(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** The unit's standby once it has loaded (no CPU used for 2 s), and how long after `since` that was. */
async function readyStandby(since) {
  let last = -1;
  let pid;
  await waitUntil(
    'a loaded standby',
    () => {
      [pid] = standbyPids('k8s.io', ADDRESS);
      if (pid === undefined) return false;
      const now = cpuTicks(pid);
      const still = now === last;
      last = now;
      return still;
    },
    300_000,
    2000,
  );
  return { pid, readyMs: Number(process.hrtime.bigint() - since) / 1e6 - 2000 };
}

/**
 * SIGKILL of skiff's serving process to the next call served, in k8s.io, where the unit serves
 * (docs/node-daemon.md): an exec (`ctr task exec`, what kubelet's ExecSync becomes) into a
 * running container, each kill made once the unit's standby has loaded, as on a node whose last
 * crash was long ago. How long the standby took to load after the previous crash is beside it.
 */
async function crashToNextCall() {
  const ns = 'k8s.io';
  const id = `bench-crash-${process.pid}`;
  await ok(ns, ['image', 'import', '/run/skiff-vm/busybox.tar']);
  await ok(ns, ['run', '-d', '--runtime', RUNTIMES.skiff, IMAGE, id, 'sleep', '100000']);
  const times = [];
  let since = process.hrtime.bigint();
  for (let round = 0; round < 3; round++) {
    const baseline = (await ok(ns, ['task', 'exec', '--exec-id', `b${round}`, id, 'true'])).ms;
    const standby = await readyStandby(since);
    const [serving] = servingProcesses(taskAddress(BUNDLES, ns, id), ns);
    const started = process.hrtime.bigint();
    process.kill(serving, 'SIGKILL');
    await ok(ns, ['task', 'exec', '--exec-id', `a${round}`, id, 'true']);
    times.push({ ms: Number(process.hrtime.bigint() - started) / 1e6, baseline, standbyMs: standby.readyMs });
    since = started;
  }
  await ok(ns, ['task', 'rm', '-f', id]);
  await ok(ns, ['container', 'rm', id]);
  return {
    median: median(times.map((t) => t.ms)),
    callMs: median(times.map((t) => t.baseline)),
    standbyMs: median(times.slice(1).map((t) => t.standbyMs)),
  };
}

async function main() {
  const logDir = fs.mkdtempSync('/var/log/vm-bench-');
  const cri = criClient(ADDRESS, { deadlineMs: 300_000 });
  try {
    // `guest.js crash` (names as arguments): only those figures, for a look at one (not the report's run).
    const only = process.argv.slice(2);
    const wanted = (name) => only.length === 0 || only.includes(name);
    const figures = {
      containerd: (await ok('default', ['version'])).stdout.match(/Version:\s+(\S+)/)?.[1],
    };
    const steps = [
      // First, while nothing has run through either handler.
      ['firsts', () => firsts(cri, logDir, process.env.SKIFF_BENCH_FIRST === 'runc' ? ['runc', 'skiff'] : undefined)],
      ['ctrRun', ctrRun],
      ['podStart', () => podStart(cri, logDir)],
      ['tenAtOnce', () => atOnce(cri, logDir)],
      ['memory', () => memory(cri, logDir)],
      ['starvation', () => starvation(cri, logDir)],
      ['crash', crashToNextCall],
    ];
    for (const [name, measure] of steps) if (wanted(name)) figures[name] = await measure();
    if (only.length > 0) {
      const journal = spawnSync('journalctl', ['-u', 'skiff@k8s.io', '-o', 'short-precise', '--no-pager', '-n', '30']);
      console.log(`--- the unit's journal, last 30 lines ---\n${journal.stdout}`);
    }
    console.log(`FIGURES ${JSON.stringify(figures)}`);
  } finally {
    cri.close();
  }
}

main().catch((err) => {
  console.error(err.stack ?? err.message);
  // What containerd and skiff said meanwhile: a failure under emulation is hard to reproduce.
  const journal = spawnSync('journalctl', ['-u', 'containerd', '--no-pager', '-n', '300'], { encoding: 'utf8' });
  console.error(`--- containerd's journal, last 300 lines ---\n${journal.stdout ?? journal.error?.message}`);
  process.exit(1);
});
