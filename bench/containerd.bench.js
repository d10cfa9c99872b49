'use strict';
// containerd 1.6 running containers through skiff (io.containerd.skiff.v2) against its own
// runc shim (io.containerd.runc.v2), side by side in one run on one private containerd:
// - `ctr run --rm <busybox> <id> true`, alternating round by round (target <= 1.0x), and the
//   node's first for each, each on a fresh containerd of its own (target <= 1.0x);
// - the memory of 100 detached `sleep` containers: every shim process summed, skiff's pod
//   keepers included (target <= 0.4x, the CRI benchmark's: a keeper per pod is the price of a
//   one-pod failure domain; 0.1x was the target when one process served them all);
// - stdout throughput of `dd if=/dev/zero bs=1M count=500` through ctr run (target >= 1.0x);
// - the runc lifecycle (Create, Start, Wait, Delete of `true`) over each shim's ttrpc with
//   the same client, both forwarding their events to a sink (target <= 1.0x): containers
//   with their own pid namespace, as `ctr run` and kubelet give them, and beside it without
//   one; alone with `node bench/run.js containerd --lifecycle-only`;
// - the serving process's own RSS as it lives on a node: with no task (its first container
//   removed, the linger long), with 1 and with RSS_TASKS detached `sleep` containers, with no
//   task again after them, beside an idle Node.js of the same binary (targets: no task <= 45 MB,
//   <= 0.1 MB per extra task); alone with `node bench/run.js containerd --rss-only`.
// Needs root, containerd, runc and busybox-static; says so and returns otherwise.
const { fork, spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {
  missing,
  startContainerd,
  startNodeDaemon,
  firstsOnFreshNodes,
  importImages,
  timedCtr,
  stopContainerd,
  BUSYBOX_IMAGE,
} = require('./containerd-env');
const { median, report } = require('./stats');
const { makeBusyboxBundle } = require('../scripts/busybox-bundle');

const ROUNDS = 20;
const SLEEPERS = 100;
const DD_ROUNDS = 3;
const LIFECYCLES = 30;
const RSS_TASKS = 50;
/** The serving process's idle RSS (MB, as /proc reports kB / 1024) and its cost per task. */
const IDLE_RSS_MB = 45;
const PER_TASK_MB = 0.1;
/** How long the serving process is left alone before its idle RSS is read (V8's memory reducer acts after ~8 s). */
const SETTLE_MS = 12_000;
/**
 * The lifecycle's containers: the headline's have their own pid namespace, as `ctr run` and
 * kubelet (unless a pod asks for hostPID or shareProcessNamespace) make them; without one, a
 * shim must also kill what the init left behind once it exits (containerd's ShouldKillAllOnExit).
 */
const PID_NAMESPACES = { own: { pidNamespace: true }, shared: {} };
const RUNTIMES = { skiff: 'io.containerd.skiff.v2', runc: 'io.containerd.runc.v2' };

const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;

/** Rounds of the node's first `ctr run` per runtime, each on a fresh containerd of its own. */
const FIRST_ROUNDS = 2;

/**
 * The first `ctr run` of a node, through each runtime on a fresh containerd of its own, so
 * containerd's own first-run costs fall on both alike; skiff's with its node daemon up, started
 * as its unit starts it at boot (docs/node-daemon.md). Beside, in `env`: skiff's first in a
 * namespace no unit serves (the serving process started by that container).
 */
async function firstRuns(env) {
  const first = (ctrEnv, name, ns) =>
    timedCtr(ctrEnv, ns, ['run', '--rm', '--runtime', RUNTIMES[name], BUSYBOX_IMAGE, 'first', 'true']);
  const times = await firstsOnFreshNodes(Object.keys(RUNTIMES), FIRST_ROUNDS, async (name) => {
    const node = await startContainerd();
    try {
      const ns = `first-${name}-${process.pid}`;
      await importImages(node, ns);
      if (name === 'skiff') await startNodeDaemon(node, ns);
      return await first(node, name, ns);
    } finally {
      await stopContainerd(node);
    }
  });
  const bareNs = `first-skiff-${process.pid}`;
  await importImages(env, bareNs);
  const bare = await first(env, 'skiff', bareNs);
  console.log(
    `first container of a fresh namespace without the unit (beside, containerd warm): skiff ${bare.toFixed(0)} ms (starts its serving process)`,
  );
  const [skiff, runc] = [median(times.skiff), median(times.runc)];
  const each = (name) => times[name].map((t) => t.toFixed(0)).join(', ');
  return report(
    "the node's first ctr run --rm, skiff (its unit up) vs runc",
    skiff / runc,
    `${skiff.toFixed(0)} vs ${runc.toFixed(0)} ms, median of ${FIRST_ROUNDS} fresh nodes each (skiff ${each('skiff')}; runc ${each('runc')})`,
    '<=',
    1.0,
  );
}

async function ctrRunTrue(env) {
  const ns = `run-${process.pid}`;
  await importImages(env, ns);
  const times = { skiff: [], runc: [] };
  for (let i = 0; i < ROUNDS; i++) {
    // Alternating, so a machine busy with other work slows both alike.
    for (const [name, runtime] of Object.entries(RUNTIMES))
      times[name].push(await timedCtr(env, ns, ['run', '--rm', '--runtime', runtime, BUSYBOX_IMAGE, `t-${i}`, 'true']));
  }
  const [skiff, runc] = [median(times.skiff), median(times.runc)];
  return report(
    'ctr run --rm busybox true',
    skiff / runc,
    `median of ${ROUNDS}: skiff ${skiff.toFixed(1)} ms vs runc.v2 ${runc.toFixed(1)} ms`,
    '<=',
    1.0,
  );
}

/** Resident and proportional memory (PSS shares pages among the processes that map them) in MiB. */
function memoryOf(pids) {
  let rss = 0;
  let pss = 0;
  for (const pid of pids) {
    const text = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    rss += Number(/^Rss:\s+(\d+)/m.exec(text)[1]);
    pss += Number(/^Pss:\s+(\d+)/m.exec(text)[1]);
  }
  return { rss: rss / 1024, pss: pss / 1024 };
}

/**
 * The shim processes of this containerd serving namespace `ns`: skiff's serving processes and
 * pod keepers (`containerd-shim-skiff-v2 ... keep`, one per pod: here one per container, as ctr
 * makes each its own pod), or containerd-shim-runc-v2.
 */
function shimPids(env, name, ns) {
  const pids = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv;
    try {
      argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const mine = argv.some((a) => a.startsWith(env.paths.dir) || a === env.address);
    const namespace = argv[argv.findIndex((a) => a === '--namespace' || a === '-namespace') + 1];
    if (!mine || namespace !== ns) continue;
    if (name === 'skiff' && (argv.some((a) => a.endsWith('containerd-daemon.js')) || argv.at(-2) === 'keep'))
      pids.push(Number(entry));
    if (name === 'runc' && path.basename(argv[0]) === 'containerd-shim-runc-v2') pids.push(Number(entry));
  }
  return pids;
}

async function memory(env) {
  const figures = {};
  for (const [name, runtime] of Object.entries(RUNTIMES)) {
    const ns = `mem-${name}-${process.pid}`;
    await importImages(env, ns);
    const ids = Array.from({ length: SLEEPERS }, (_, i) => `m-${i}`);
    for (let i = 0; i < ids.length; i += 4) {
      await Promise.all(
        ids
          .slice(i, i + 4)
          .map((id) => timedCtr(env, ns, ['run', '-d', '--runtime', runtime, BUSYBOX_IMAGE, id, 'sleep', '1000'])),
      );
    }
    const pids = shimPids(env, name, ns);
    figures[name] = { ...memoryOf(pids), processes: pids.length };
    await env.ctr(ns, ['tasks', 'rm', '-f', ...ids], { timeoutMs: 120_000 });
    await env.ctr(ns, ['containers', 'rm', ...ids], { timeoutMs: 120_000 });
  }
  const { skiff, runc } = figures;
  console.log(
    `${SLEEPERS} detached sleep containers, shim processes summed: skiff ${skiff.processes} process(es) ` +
      `RSS ${skiff.rss.toFixed(1)} MiB PSS ${skiff.pss.toFixed(1)} MiB; runc.v2 ${runc.processes} processes ` +
      `RSS ${runc.rss.toFixed(1)} MiB PSS ${runc.pss.toFixed(1)} MiB`,
  );
  // RSS as the target's figures are (a runc shim "takes ~13 MB"); PSS, which shares the Go
  // shims' common pages out among them, beside it.
  report(
    `memory of ${SLEEPERS} containers (PSS)`,
    skiff.pss / runc.pss,
    `${skiff.pss.toFixed(1)} vs ${runc.pss.toFixed(1)} MiB`,
    '<=',
    0.4,
  );
  return report(
    `memory of ${SLEEPERS} containers (RSS)`,
    skiff.rss / runc.rss,
    `${skiff.rss.toFixed(1)} vs ${runc.rss.toFixed(1)} MiB`,
    '<=',
    0.4,
  );
}

/** VmRSS of `pid` in MB (kB / 1024, as the shim benchmark reads it). */
function rssMb(pid) {
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
}

const sleep = (msToWait) => new Promise((resolve) => setTimeout(resolve, msToWait));

/** An idle Node.js of the serving process's binary, as it sits after SETTLE_MS: the floor any Node process pays. */
async function idleNodeRss(node) {
  const child = spawn(node, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' });
  try {
    await sleep(SETTLE_MS);
    return rssMb(child.pid);
  } finally {
    child.kill('SIGKILL');
  }
}

/** The serving process of namespace `ns` (not a pod keeper). */
function servingPid(env, ns) {
  const argv = (pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  return shimPids(env, 'skiff', ns).find((pid) => argv(pid).at(-2) !== 'keep');
}

/** The node flags `pid` runs with: its arguments before bin/containerd-daemon.js. */
function nodeFlags(pid) {
  const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  return argv
    .slice(
      1,
      argv.findIndex((a) => a.endsWith('containerd-daemon.js')),
    )
    .join(' ');
}

/**
 * The serving process's RSS as it lives on a node now that it outlasts its tasks: started by a
 * first `ctr run --rm`, then with no task, with 1 and RSS_TASKS detached sleepers (each behind
 * its pod keeper, not counted here), and with no task again once they are removed (a process
 * that has served: the JIT's code and the heap it grew stay). Its own containerd, whose
 * environment keeps the process from leaving when it has no task. Each figure is read after
 * SETTLE_MS without calls, as an operator reads it (no collection asked).
 */
async function servingRss() {
  const env = await startContainerd({ env: { SKIFF_SHIM_LINGER_MS: '3600000' } });
  const ns = `rss-${process.pid}`;
  const ids = Array.from({ length: RSS_TASKS }, (_, i) => `r-${i}`);
  const detached = (id) =>
    timedCtr(env, ns, ['run', '-d', '--runtime', RUNTIMES.skiff, BUSYBOX_IMAGE, id, 'sleep', '1000']);
  const settled = async () => {
    await sleep(SETTLE_MS);
    return rssMb(pid);
  };
  let pid;
  try {
    await importImages(env, ns);
    await timedCtr(env, ns, ['run', '--rm', '--runtime', RUNTIMES.skiff, BUSYBOX_IMAGE, 'first', 'true']);
    pid = servingPid(env, ns);
    const [idle, bare] = await Promise.all([settled(), idleNodeRss(fs.readlinkSync(`/proc/${pid}/exe`))]);
    await detached(ids[0]);
    const one = await settled();
    for (let i = 1; i < ids.length; i += 4) await Promise.all(ids.slice(i, i + 4).map(detached));
    const many = await settled();
    await env.ctr(ns, ['tasks', 'rm', '-f', ...ids], { timeoutMs: 120_000 });
    await env.ctr(ns, ['containers', 'rm', ...ids], { timeoutMs: 120_000 });
    const idleAfter = await settled();
    const perTask = (many - one) / (RSS_TASKS - 1);
    console.log(
      `serving process RSS (node ${nodeFlags(pid)}): no task ${idle.toFixed(1)} MB, 1 task ${one.toFixed(1)} MB, ` +
        `${RSS_TASKS} tasks ${many.toFixed(1)} MB, no task again ${idleAfter.toFixed(1)} MB; ` +
        `an idle \`node -e setInterval\` ${bare.toFixed(1)} MB`,
    );
    const worst = Math.max(idle, idleAfter);
    const okIdle = report(
      `serving process RSS with no task (ratio of ${IDLE_RSS_MB} MB)`,
      worst / IDLE_RSS_MB,
      `${worst.toFixed(1)} MB, the larger of after its first container and after ${RSS_TASKS} tasks; ` +
        `${(worst - bare).toFixed(1)} MB over an idle Node.js`,
      '<=',
      1.0,
    );
    const okPer = report(
      `serving process RSS per extra task (ratio of ${PER_TASK_MB} MB)`,
      perTask / PER_TASK_MB,
      `${perTask.toFixed(3)} MB/task from 1 to ${RSS_TASKS}`,
      '<=',
      1.0,
    );
    return okIdle && okPer;
  } finally {
    await env.ctr(ns, ['tasks', 'rm', '-f', ...ids], { timeoutMs: 120_000 }).catch(() => undefined);
    await env.ctr(ns, ['containers', 'rm', ...ids], { timeoutMs: 120_000 }).catch(() => undefined);
    // It would stay for the next container: none comes.
    if (pid !== undefined) process.kill(pid, 'SIGTERM');
    await sleep(1000);
    await stopContainerd(env);
  }
}

/** ctr run --rm of dd with stdout counted and dropped; resolves MiB/s. */
function ddThroughput(env, ns, runtime, id) {
  return new Promise((resolve, reject) => {
    const args = ['--address', env.address, '--namespace', ns, 'run', '--rm', '--fifo-dir', env.paths.fifoDir];
    const dd = ['dd', 'if=/dev/zero', 'bs=1M', 'count=500'];
    const started = process.hrtime.bigint();
    const child = spawn('ctr', [...args, '--runtime', runtime, BUSYBOX_IMAGE, id, ...dd], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let bytes = 0;
    child.stdout.on('data', (chunk) => (bytes += chunk.length));
    child.once('error', reject);
    child.once('close', (code) => {
      const seconds = ms(started) / 1000;
      if (code !== 0 || bytes !== 500 * 1024 * 1024)
        reject(new Error(`dd through ${runtime}: exit ${code}, ${bytes} bytes`));
      else resolve(500 / seconds);
    });
  });
}

async function throughput(env) {
  const ns = `dd-${process.pid}`;
  await importImages(env, ns);
  const rates = { skiff: [], runc: [] };
  for (let i = 0; i < DD_ROUNDS; i++) {
    for (const [name, runtime] of Object.entries(RUNTIMES))
      rates[name].push(await ddThroughput(env, ns, runtime, `dd-${name}-${i}`));
  }
  const [skiff, runc] = [median(rates.skiff), median(rates.runc)];
  return report(
    'dd 500 MiB to stdout through ctr run',
    skiff / runc,
    `median of ${DD_ROUNDS}: skiff ${skiff.toFixed(0)} MiB/s vs runc.v2 ${runc.toFixed(0)} MiB/s`,
    '>=',
    1.0,
  );
}

/** The containerd address the lifecycle's shims are given (none listens; its `.ttrpc` is the events sink). */
const containerdAddress = (dir) => path.join(dir, 'c.sock');

/**
 * A shim started as containerd starts it (`start` in a bundle under a containerd-like state
 * dir, the log FIFO held open), one group for every task, so both serve warm.
 */
function startShimBinary(binary, dir, ns) {
  const bundle = path.join(dir, 'state/io.containerd.runtime.v2.task', ns, 'shim-start');
  makeBusyboxBundle(bundle, ['true']);
  const config = JSON.parse(fs.readFileSync(path.join(bundle, 'config.json'), 'utf8'));
  config.annotations = { 'io.containerd.runc.v2.group': 'bench' };
  fs.writeFileSync(path.join(bundle, 'config.json'), JSON.stringify(config));
  spawnSync('mkfifo', [path.join(bundle, 'log')]);
  const logReader = fs.openSync(path.join(bundle, 'log'), fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const address = containerdAddress(dir);
  const started = spawnSync(binary, ['-namespace', ns, '-address', address, '-id', 'shim-start', 'start'], {
    cwd: bundle,
    env: { ...process.env, TTRPC_ADDRESS: `${address}.ttrpc` },
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (started.status !== 0) throw new Error(`${binary} start failed: ${started.stdout}${started.stderr}`);
  return { address: started.stdout.trim(), logReader };
}

async function lifecycle() {
  const { TtrpcTaskClient } = require('../dist/adapters/shim/outbound/task-client/ttrpc-task-client');
  const { containerd } = require('../dist/adapters/shim/wire/proto/generated/containerd/runc');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skiff-lc-'));
  // containerd's state dir (/run/containerd) is a tmpfs, where both shims keep runc's root in
  // production: here both keep it on this run's tmpfs (skiff under <state>/skiff, the runc shim
  // through the `root` option below), not on the disk and not in the machine's /run/containerd.
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'mode=0700', 'tmpfs', dir]);
  if (mounted.status !== 0) throw new Error(`cannot mount a tmpfs on ${dir}: ${mounted.stderr}`);
  const ns = `lc-${process.pid}`;
  // Both shims forward their events as under containerd: without a listener the runc shim's
  // publisher keeps redialling (CPU taken from its own calls) and blocks once 128 are queued.
  const sink = fork(path.join(__dirname, 'events-sink.js'), [`${containerdAddress(dir)}.ttrpc`]);
  await new Promise((resolve, reject) => {
    sink.once('message', resolve);
    sink.once('exit', () => reject(new Error('the events sink did not start')));
  });
  const shims = {
    skiff: startShimBinary(path.join(__dirname, '../bin/containerd-shim-skiff-v2'), dir, ns),
    runc: startShimBinary('containerd-shim-runc-v2', dir, `${ns}r`),
  };
  const clients = { skiff: new TtrpcTaskClient(shims.skiff.address), runc: new TtrpcTaskClient(shims.runc.address) };
  const bundles = path.join(dir, 'bundles');
  const times = { own: { skiff: [], runc: [] }, shared: { skiff: [], runc: [] } };
  /** Each shim's serving process, as Connect reports it: skiff's outlives the shutdown of its `start` task. */
  const servingPids = {};
  // runc's root on this run's tmpfs for both (skiff keeps its own under <state>/skiff and
  // reads no `root`): containerd-shim-runc-v2 would otherwise use the machine's /run/containerd/runc.
  const options = {
    typeUrl: 'containerd.runc.v1.Options',
    value: new containerd.runc.v1.Options({ root: path.join(dir, 'runc-shim-root') }).serializeBinary(),
  };
  const stdio = {
    options,
    rootfs: [],
    terminal: false,
    stdin: '',
    stdout: '',
    stderr: '',
    checkpoint: '',
    parentCheckpoint: '',
  };
  try {
    for (let i = 0; i < LIFECYCLES; i++) {
      for (const [pidNs, bundleOptions] of Object.entries(PID_NAMESPACES)) {
        for (const name of Object.keys(clients)) {
          const id = `${name}-${pidNs}-${i}`;
          const bundle = makeBusyboxBundle(path.join(bundles, id), ['true'], bundleOptions);
          // What containerd's `start` of each task leaves in its bundle: skiff's serving process
          // then launches the task's runc through the pod keeper, as under containerd.
          if (name === 'skiff') fs.writeFileSync(path.join(bundle, 'address'), shims.skiff.address);
          const client = clients[name];
          const started = process.hrtime.bigint();
          await client.create({ id, bundle, ...stdio });
          servingPids[name] ??= (await client.connect(id)).shimPid;
          const exited = client.wait({ id, execId: '' });
          await client.start({ id, execId: '' });
          await exited;
          await client.delete({ id, execId: '' });
          times[pidNs][name].push(ms(started));
          fs.rmSync(bundle, { recursive: true, force: true });
        }
      }
    }
  } finally {
    for (const [name, client] of Object.entries(clients)) {
      await client.shutdown({ id: 'shim-start', now: true }).catch(() => undefined);
      client.close();
      // skiff's serving process would linger for the next container: none comes.
      try {
        if (servingPids[name] !== undefined) process.kill(servingPids[name], 'SIGTERM');
      } catch {
        // gone already
      }
      fs.closeSync(shims[name].logReader);
    }
    sink.disconnect();
    spawnSync('umount', ['--recursive', '--lazy', dir]);
    fs.rmSync(dir, { recursive: true, force: true });
    // The runc shim still makes an empty /run/containerd/runc/<namespace> for itself.
    fs.rmSync(`/run/containerd/runc/${ns}r`, { recursive: true, force: true });
  }
  const medians = (pidNs) => [median(times[pidNs].skiff.slice(5)), median(times[pidNs].runc.slice(5))];
  const [sharedSkiff, sharedRunc] = medians('shared');
  console.log(
    `runc lifecycle over ttrpc, containers without a pid namespace of their own (runc kill --all after the init's exit): ` +
      `${(sharedSkiff / sharedRunc).toFixed(2)}x, skiff ${sharedSkiff.toFixed(1)} ms vs containerd-shim-runc-v2 ${sharedRunc.toFixed(1)} ms`,
  );
  const [skiff, runc] = medians('own');
  return report(
    'runc lifecycle over ttrpc (Create+Start+Wait+Delete of busybox true, own pid namespace)',
    skiff / runc,
    `median of ${LIFECYCLES - 5} after 5: skiff ${skiff.toFixed(1)} ms vs containerd-shim-runc-v2 ${runc.toFixed(1)} ms`,
    '<=',
    1.0,
  );
}

async function run() {
  const why = missing();
  if (why !== undefined) {
    console.log(`containerd benchmark not run: ${why}`);
    return;
  }
  console.log(`(2 cores shared with whatever else runs: figures are noisy)`);
  // `node bench/run.js containerd --lifecycle-only`: the ttrpc lifecycle alone (no containerd), in seconds.
  if (process.argv.includes('--lifecycle-only')) return lifecycle();
  if (process.argv.includes('--rss-only')) return servingRss();
  const env = await startContainerd();
  try {
    await firstRuns(env);
    await ctrRunTrue(env);
    await throughput(env);
    await memory(env);
  } finally {
    await stopContainerd(env);
  }
  await servingRss();
  await lifecycle();
}

module.exports = { run };
