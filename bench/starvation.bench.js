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
const { missing, startNodeDaemon } = require('./containerd-env');
const { withCriContainerd } = require('./cri-env');
const { starvedRounds, starvationBound, starvationLines } = require('./starved-pods');
const { report } = require('./stats');

const SKIFF_SHIM = path.join(__dirname, '../build/Release/containerd-shim-skiff-v2');
const ROUNDS = 2;
const AT_ONCE = 20;
const LOOPS_PER_CORE = 8;

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
  const loops = os.cpus().length * LOOPS_PER_CORE;
  let measured;
  await withCriContainerd(async (env, cri, logDir) => {
    await startNodeDaemon(env, 'k8s.io');
    measured = await starvedRounds({
      cri,
      bundles: env.paths.bundles,
      logDir,
      TtrpcTaskClient,
      handlers: ['runc', 'skiff'],
      rounds: ROUNDS,
      atOnce: AT_ONCE,
      loops,
    });
  });
  for (const line of starvationLines(measured)) console.log(line);
  const { summary, load } = measured;
  const bound = starvationBound(summary);
  report(
    `slowest State under starvation, skiff vs max(2 s, 1.5x runc's slowest)`,
    summary.skiff.slowest / bound,
    `${summary.skiff.slowest.toFixed(0)} vs ${bound.toFixed(0)} ms (runc's slowest ${summary.runc.slowest.toFixed(0)} ms); load: ${load}`,
    '<=',
    1.0,
  );
  if (summary.skiff.lost > 0 || summary.runc.lost > 0)
    console.log(`MISS: pods lost under starvation: skiff ${summary.skiff.lost}, runc ${summary.runc.lost}`);
}

module.exports = { run };
