'use strict';
// The shim's speed and memory targets (issues 2 and 14), each measured side by side with
// its baseline in the same run, alternating runs so machine noise hits both alike.
const { execFile, execFileSync, fork } = require('node:child_process');
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
  rssMb,
} = require('./shim-client');
const { freshShim, UNTIMED, TIMED } = require('./fresh-shim');

/**
 * Every `skiff run` starts a shim, and containerd a group's serving process for its first container
 * (again after 30 s without a task): fresh shims make the headline.
 */
const FRESH_SHIMS = 3;
/** The warmed-up figure, printed beside the headline, is taken after this many lifecycles. */
const WARM = 800;

function tempDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'skiff-bench-'));
}

/** Runs bench/fresh-shim.js with `args` in a Node process of its own: the figures it prints. */
function freshClientProcess(args) {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [path.join(__dirname, 'fresh-shim.js'), ...args], (err, stdout, stderr) =>
      err ? reject(new Error(`fresh-shim.js failed: ${stderr || err.message}`)) : resolve(JSON.parse(stdout)),
    ),
  );
}

/**
 * A fresh shim timed by a client as fresh as it, in a Node process of its own: over gRPC
 * the client of `skiff task` (node:http2), or grpc-js's with `client` 'grpc-js'.
 */
function freshShimFreshClient(transport, dir, bundle, client = 'skiff') {
  return freshClientProcess([transport, dir, bundle, ...(transport === 'grpc' ? [client] : [])]);
}

/**
 * What a fresh client alone costs (skiff's, node:http2, as `skiff task` has it): the same
 * lifecycles, timed the same way, against a server that does no work and was warmed up
 * first (bench/null-grpc-server.js). A shim can only add to it. Printed beside the gRPC
 * headline, as its floor (grpc-js's beside skiff's: bench/task-client.bench.js).
 */
async function grpcClientFloor(dir) {
  const socket = path.join(dir, 'null-grpc.sock');
  const server = fork(path.join(__dirname, 'null-grpc-server.js'), [socket], { env: MINIMAL_ENV });
  try {
    await new Promise((resolve, reject) => {
      server.once('message', resolve);
      server.once('exit', (code) => reject(new Error(`null-grpc-server.js exited (${code})`)));
    });
    const warm = connectClient('grpc', socket);
    for (let i = 0; i < WARM; i++) await lifecycle(warm, `w${i}`, '/none');
    warm.close();
    const runs = [];
    for (let r = 0; r < FRESH_SHIMS; r++) runs.push(await freshClientProcess(['floor', socket, 'skiff']));
    const floor = ratio({ viaShim: gather(runs, 'viaShim'), bare: gather(runs, 'bare') });
    console.log(
      `gRPC client floor: a fresh client's lifecycles (skiff's, node:http2) against a server that does no work (no process is spawned): ` +
        `${floor.text} of spawn-and-wait, first ${TIMED} after ${UNTIMED} untimed, ${FRESH_SHIMS} fresh clients; ` +
        `no gRPC shim timed this way can go below it`,
    );
  } finally {
    server.kill();
  }
}

/** A client that has run `WARM` lifecycles against a shim of its own first. */
async function warmClient(transport, dir, bundle) {
  const shim = await startShim(transport, path.join(dir, `${transport}-client`));
  const client = connectClient(transport, shim.socket);
  for (let i = 0; i < WARM; i++) await lifecycle(client, `c${i}`, bundle);
  await stopShim(shim, client);
}

const ratio = ({ viaShim, bare }) => {
  const [a, b] = [median(viaShim), median(bare)];
  return { a, b, text: `${(a / b).toFixed(2)}x, ${a.toFixed(2)} vs ${b.toFixed(2)} ms` };
};
const gather = (runs, key) => runs.flatMap((run) => run[key]);

/**
 * Fresh shims as users meet them: from `skiff shim serve` to the first Create answered (the
 * client dials as soon as the socket accepts), the first lifecycle, then the first 150 after
 * 10 untimed. Each is timed twice over: by a fresh client (a new Node process, as a `skiff
 * task` command or a probe is), and by a client warmed up on a shim of its own first (as a
 * long-running containerd's is); the last of those goes on to the warmed-up figure. The
 * headline takes the client users have: over gRPC a fresh one (skiff task, a probe), over
 * ttrpc a warm one (its client is containerd, a daemon that has served many shims before).
 */
async function freshShimLifecycles(transport, dir) {
  const bundle = writeBundle(dir, 'true', ['/bin/true']);
  const cold = [];
  // Over gRPC, the same with grpc-js's client (skiff's before), alternating with skiff's own.
  const coldGrpcJs = [];
  for (let r = 0; r < FRESH_SHIMS; r++) {
    cold.push(await freshShimFreshClient(transport, path.join(dir, `${transport}-cold-${r}`), bundle));
    if (transport === 'grpc') {
      coldGrpcJs.push(await freshShimFreshClient(transport, path.join(dir, `grpc-js-cold-${r}`), bundle, 'grpc-js'));
    }
  }
  await warmClient(transport, dir, bundle);
  const baseline = spawnBaseline();
  await baseline.times(UNTIMED);
  const warm = [];
  for (let r = 0; r < FRESH_SHIMS; r++) {
    const warmTo = r === FRESH_SHIMS - 1 ? WARM : undefined;
    warm.push(await freshShim(transport, path.join(dir, `${transport}-fresh-${r}`), bundle, baseline, warmTo));
  }
  baseline.stop();
  const freshClientFigure = ratio({ viaShim: gather(cold, 'viaShim'), bare: gather(cold, 'bare') });
  const warmClientFigure = ratio({ viaShim: gather(warm, 'viaShim'), bare: gather(warm, 'bare') });
  const headline = transport === 'grpc' ? freshClientFigure : warmClientFigure;
  const beside =
    transport === 'grpc'
      ? `each with a fresh client (skiff's, node:http2); with grpc-js's fresh client instead: ` +
        `${ratio({ viaShim: gather(coldGrpcJs, 'viaShim'), bare: gather(coldGrpcJs, 'bare') }).text}; ` +
        `with a warmed-up client: ${warmClientFigure.text}`
      : `each with a client warmed up first, as containerd's is; with a fresh client: ${freshClientFigure.text}`;
  const warmed = ratio(warm[FRESH_SHIMS - 1].warmed);
  const name = transport === 'grpc' ? 'gRPC' : 'ttrpc';
  const ms = (runs, key) => median(gather(runs, key)).toFixed(1);
  console.log(
    `fresh shim over ${name}: serve -> first Create answered ${ms(cold, 'firstCreate')} ms, first lifecycle ${ms(cold, 'firstLifecycle')} ms ` +
      `(Create sent as soon as the socket accepts; ${ms(cold, 'afterCreate')} ms after its reply), medians of ${FRESH_SHIMS} shims, fresh clients; ` +
      `with a warmed-up client: ${ms(warm, 'firstCreate')} / ${ms(warm, 'firstLifecycle')} ms`,
  );
  return report(
    `lifecycle (Create+Start+Wait+Delete of /bin/true) over ${name}, fresh shim vs spawn-and-wait`,
    headline.a / headline.b,
    `${headline.a.toFixed(2)} vs ${headline.b.toFixed(2)} ms median, first ${TIMED} after ${UNTIMED} untimed, ${FRESH_SHIMS} fresh shims, ` +
      `${beside}; warmed up (after ${WARM}): ${warmed.text}`,
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
  for (let i = 0; i < 5; i++) {
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
    await grpcClientFloor(dir);
    await freshShimLifecycles('ttrpc', dir);
    await throughput(dir);
    await startup(dir);
    await memory(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { run };
