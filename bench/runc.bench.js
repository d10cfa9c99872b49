'use strict';
// The runc runtime, measured side by side in one run:
// - the full lifecycle of a busybox `true` container through a running shim (Create, Start,
//   Wait, Delete over gRPC) against `runc run` of the same bundle (target <= 1.2x);
// - the shim's resident memory idle and with 10 running runc containers.
// Needs root, runc and busybox-static; says so and returns otherwise.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { makeBusyboxBundle } = require('../scripts/busybox-bundle');
const { missingTools } = require('../scripts/missing-tools');
const { median, report } = require('./stats');
const { pb, nowMs, connectClient, startShim, stopShim, lifecycle, rssMb } = require('./shim-client');

/** A shim serves a handful of lifecycles: the headline is the first ROUNDS after UNTIMED untimed. */
const UNTIMED = 10;
const ROUNDS = 40;
/** The warmer figure printed beside it: the last WARMED of those rounds. */
const WARMED = 20;
const CONTAINERS = 10;

function missing() {
  const problems = missingTools(['runc']);
  return problems.length === 0
    ? undefined
    : `${problems.join(', ')} (apt-get install runc busybox-static, run as root)`;
}

function timeProcess(file, args) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(file, args, { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(Number(process.hrtime.bigint() - started) / 1e6)
        : reject(new Error(`${file} exited ${code}`)),
    );
  });
}

async function run() {
  const why = missing();
  if (why !== undefined) {
    console.log(`runc benchmark not run: ${why}`);
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skiff-bench-runc-'));
  const bundle = makeBusyboxBundle(path.join(dir, 'true'), ['true'], { pidNamespace: true });
  const sleeper = makeBusyboxBundle(path.join(dir, 'sleep'), ['sleep', '1000'], { pidNamespace: true });
  const runcRoot = path.join(dir, 'runc-root');
  const shim = await startShim('grpc', path.join(dir, 'shim'), { runtime: 'runc' });
  const client = connectClient('grpc', shim.socket);
  const { call } = client;
  try {
    let n = 0;
    const viaShim = async () => {
      const started = nowMs();
      await lifecycle(client, `bench-${n++}`, bundle);
      return nowMs() - started;
    };
    const viaRunc = () => timeProcess('runc', ['--root', runcRoot, 'run', '--bundle', bundle, `bench-run-${n++}`]);

    // The first rounds load runc and busybox into the page cache and compile the shim's
    // request path. Then alternate round by round, so each side runs after the other alike:
    // in blocks, `runc run` after `runc run` took 17 ms and the shim 35.5 ms (why back-to-back
    // `runc run`s are faster was not pinned down), round by round 23 and 33 ms.
    for (let i = 0; i < UNTIMED; i++) {
      await viaShim();
      await viaRunc();
    }
    const shimTimes = [];
    const runcTimes = [];
    for (let i = 0; i < ROUNDS; i++) {
      shimTimes.push(await viaShim());
      runcTimes.push(await viaRunc());
    }
    const s = median(shimTimes);
    const r = median(runcTimes);
    const ws = median(shimTimes.slice(-WARMED));
    const wr = median(runcTimes.slice(-WARMED));
    report(
      'runc lifecycle (Create+Start+Wait+Delete of busybox true) vs runc run',
      s / r,
      `${s.toFixed(1)} ms vs ${r.toFixed(1)} ms, median of the first ${ROUNDS} after ${UNTIMED} untimed; ` +
        `the last ${WARMED} of them: ${(ws / wr).toFixed(2)}x, ${ws.toFixed(1)} vs ${wr.toFixed(1)} ms`,
      '<=',
      1.2,
    );

    const idle = rssMb(shim.child.pid);
    const ids = Array.from({ length: CONTAINERS }, (_, i) => `sleeper-${i}`);
    for (const id of ids) {
      await call('Create', new pb.CreateTaskRequest({ id, bundle: sleeper }));
      await call('Start', new pb.StartRequest({ id }));
    }
    const loaded = rssMb(shim.child.pid);
    console.log(
      `shim RSS: ${idle.toFixed(1)} MB idle, ${loaded.toFixed(1)} MB with ${CONTAINERS} running runc containers (+${((loaded - idle) / CONTAINERS).toFixed(2)} MB each)`,
    );
    for (const id of ids) {
      await call('Kill', new pb.KillRequest({ id, signal: 9 }));
      await call('Wait', new pb.WaitRequest({ id }));
      await call('Delete', new pb.DeleteRequest({ id }));
    }
  } finally {
    await stopShim(shim, client);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { run };
