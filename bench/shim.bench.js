'use strict';
// The shim's speed and memory targets (issues 2 and 14), each measured side by side with
// its baseline in the same run, alternating runs so machine noise hits both alike.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { median, report } = require('./stats');
const {
  pb,
  nowMs,
  MINIMAL_ENV,
  connectClient,
  startShim,
  stopShim,
  spawnBaseline,
  writeBundle,
  lifecycle,
  spawnAndWait,
} = require('./shim-client');

/** A shim is started per container or per pod and serves a handful of lifecycles: fresh shims make the headline. */
const FRESH_SHIMS = 3;
const UNTIMED = 10;
const TIMED = 150;
/** Lifecycles and baseline spawns alternate in blocks of this many, so machine noise hits both alike. */
const BLOCK = 10;
/** The warmed-up figure, printed beside the headline, is taken after this many lifecycles. */
const WARM = 800;

function tempDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'skiff-bench-'));
}

/** `count` lifecycles alternating with as many spawn-and-waits of /bin/true (`baseline`), in blocks. */
async function sideBySide(client, bundle, count, next, baseline) {
  const viaShim = [];
  const bare = [];
  for (let done = 0; done < count; done += BLOCK) {
    for (let i = 0; i < BLOCK; i++) {
      const t = nowMs();
      await lifecycle(client, next(), bundle);
      viaShim.push(nowMs() - t);
    }
    bare.push(...(await baseline.times(BLOCK)));
  }
  return { viaShim, bare };
}

/**
 * The client stands for containerd, a long-running daemon whose code is hot: it is run
 * on a shim of its own first, so the shims measured next are the only fresh party.
 */
async function warmClient(transport, dir, bundle) {
  const shim = await startShim(transport, path.join(dir, `${transport}-client`));
  const client = connectClient(transport, shim.socket);
  for (let i = 0; i < WARM; i++) await lifecycle(client, `c${i}`, bundle);
  await stopShim(shim, client);
}

/**
 * Fresh shims as users meet them: from `skiff shim serve` to the first Create answered
 * (the client dials as soon as the socket accepts), the first lifecycle, then the first
 * 150 after 10 untimed. The last shim then goes on to the warmed-up figure.
 */
async function freshShimLifecycles(transport, dir) {
  const bundle = writeBundle(dir, 'true', ['/bin/true']);
  await warmClient(transport, dir, bundle);
  const baseline = spawnBaseline();
  await baseline.times(UNTIMED);
  const firstCreate = [];
  const firstLifecycle = [];
  const afterCreate = [];
  const fresh = { viaShim: [], bare: [] };
  let warmed;
  for (let r = 0; r < FRESH_SHIMS; r++) {
    const shim = await startShim(transport, path.join(dir, `${transport}-fresh-${r}`));
    const client = connectClient(transport, shim.socket);
    const t = nowMs();
    await client.call('Create', new pb.CreateTaskRequest({ id: 'first', bundle }));
    firstCreate.push(nowMs() - shim.started);
    const answered = nowMs();
    const exited = client.call('Wait', new pb.WaitRequest({ id: 'first' }));
    await client.call('Start', new pb.StartRequest({ id: 'first' }));
    await exited;
    await client.call('Delete', new pb.DeleteRequest({ id: 'first' }));
    firstLifecycle.push(nowMs() - t);
    afterCreate.push(nowMs() - answered);
    let n = 0;
    const next = () => `l${n++}`;
    for (let i = 1; i < UNTIMED; i++) await lifecycle(client, next(), bundle);
    const { viaShim, bare } = await sideBySide(client, bundle, TIMED, next, baseline);
    fresh.viaShim.push(...viaShim);
    fresh.bare.push(...bare);
    if (r === FRESH_SHIMS - 1) {
      while (n < WARM) await lifecycle(client, next(), bundle);
      warmed = await sideBySide(client, bundle, TIMED, next, baseline);
    }
    await stopShim(shim, client);
  }
  baseline.stop();
  const a = median(fresh.viaShim);
  const b = median(fresh.bare);
  const wa = median(warmed.viaShim);
  const wb = median(warmed.bare);
  const name = transport === 'grpc' ? 'gRPC' : 'ttrpc';
  console.log(
    `fresh shim over ${name}: serve -> first Create answered ${median(firstCreate).toFixed(1)} ms, first lifecycle ${median(firstLifecycle).toFixed(1)} ms ` +
      `(Create sent as soon as the socket accepts; ${median(afterCreate).toFixed(1)} ms after its reply), medians of ${FRESH_SHIMS} shims`,
  );
  return report(
    `lifecycle (Create+Start+Wait+Delete of /bin/true) over ${name}, fresh shim vs spawn-and-wait`,
    a / b,
    `${a.toFixed(2)} vs ${b.toFixed(2)} ms median, first ${TIMED} after ${UNTIMED} untimed, ${FRESH_SHIMS} fresh shims; ` +
      `warmed up (after ${WARM}): ${(wa / wb).toFixed(2)}x, ${wa.toFixed(2)} vs ${wb.toFixed(2)} ms`,
    '<=',
    1.5,
  );
}

async function throughput(dir) {
  const GiB = 1024 * 1024 * 1024;
  const writer = `head -c ${GiB} /dev/zero`;
  const shim = await startShim('grpc', path.join(dir, 'throughput'));
  const client = connectClient('grpc', shim.socket);
  const b = writeBundle(dir, 'writer', ['/bin/sh', '-c', writer]);
  const viaShim = [];
  const plain = [];
  for (let i = 0; i < 3; i++) {
    const fifo = path.join(dir, `out${i}`);
    execFileSync('mkfifo', [fifo]);
    const id = `w${i}`;
    let t = nowMs();
    await client.call('Create', new pb.CreateTaskRequest({ id, bundle: b, stdout: fifo }));
    const reader = spawnAndWait('/bin/sh', ['-c', `cat "${fifo}" > /dev/null`]);
    await client.call('Start', new pb.StartRequest({ id }));
    await reader;
    viaShim.push(nowMs() - t);
    await client.call('Delete', new pb.DeleteRequest({ id }));
    t = nowMs();
    await spawnAndWait('/bin/sh', ['-c', `${writer} | cat > /dev/null`]);
    plain.push(nowMs() - t);
  }
  await stopShim(shim, client);
  const a = median(viaShim);
  const p = median(plain);
  const rate = (ms) => `${(1024 / (ms / 1000)).toFixed(0)} MiB/s`;
  return report(
    'stdout throughput, 1 GiB into a FIFO reader vs a plain pipe',
    p / a,
    `${rate(a)} vs ${rate(p)}`,
    '>=',
    0.8,
  );
}

async function startup(dir) {
  const shimTimes = [];
  const nodeTimes = [];
  for (let i = 0; i < 15; i++) {
    const shim = await startShim('grpc', path.join(dir, `ready-${i}`));
    shimTimes.push(shim.readyMs);
    await stopShim(shim);
    const t = nowMs();
    await spawnAndWait(process.execPath, ['-e', '0'], { env: MINIMAL_ENV });
    nodeTimes.push(nowMs() - t);
  }
  const a = median(shimTimes);
  const n = median(nodeTimes);
  return report(
    '`skiff shim serve` to an accepting socket vs `node -e 0`',
    a / n,
    `${a.toFixed(1)} ms vs ${n.toFixed(1)} ms median`,
    '<=',
    1.3,
  );
}

function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]) / 1024;
}

async function memory(dir) {
  const shim = await startShim('grpc', path.join(dir, 'memory'));
  const client = connectClient('grpc', shim.socket);
  const b = writeBundle(dir, 'sleep', ['/bin/sleep', '1000']);
  const settle = async () => {
    if (global.gc) global.gc();
    await new Promise((r) => setTimeout(r, 500));
  };
  await client.call('Create', new pb.CreateTaskRequest({ id: 'm0', bundle: b }));
  await client.call('Start', new pb.StartRequest({ id: 'm0' }));
  await settle();
  const one = rssMb(shim.child.pid);
  for (let i = 1; i < 100; i++) {
    await client.call('Create', new pb.CreateTaskRequest({ id: `m${i}`, bundle: b }));
    await client.call('Start', new pb.StartRequest({ id: `m${i}` }));
  }
  await settle();
  const hundred = rssMb(shim.child.pid);
  await client.call('Shutdown', new pb.ShutdownRequest({ now: true })).catch(() => undefined);
  await new Promise((r) => (shim.child.exitCode !== null ? r() : shim.child.once('exit', r)));
  client.close();
  const perTask = (hundred - one) / 99;
  const okOne = report(
    'shim RSS with 1 task (MB, target as a ratio of 60 MB)',
    one / 60,
    `${one.toFixed(1)} MB`,
    '<=',
    1,
  );
  const okPer = report(
    'shim RSS per extra sleeping task (MB, ratio of 0.2 MB)',
    perTask / 0.2,
    `${perTask.toFixed(3)} MB/task, ${hundred.toFixed(1)} MB with 100`,
    '<=',
    1,
  );
  return okOne && okPer;
}

async function run() {
  const dir = tempDir();
  try {
    console.log(
      `(load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} on ${os.cpus().length} cores)`,
    );
    await freshShimLifecycles('grpc', dir);
    await freshShimLifecycles('ttrpc', dir);
    await throughput(dir);
    await startup(dir);
    await memory(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { run };
