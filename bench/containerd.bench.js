'use strict';
// Containerd with its runc shim, as the reference the skiff shim will be measured against:
// `ctr run --rm --runtime io.containerd.runc.v2 <busybox> <id> true`, end to end (ctr,
// containerd, a shim start, runc create/start, the exit, delete, the shim's delete action).
// The first run in a freshly imported namespace is printed beside the median of the rounds.
// Needs root, containerd, runc and busybox-static; says so and returns otherwise.
const { missing, startContainerd, importImages, timedCtr, stopContainerd, BUSYBOX_IMAGE } = require('./containerd-env');
const { median } = require('./stats');

const ROUNDS = 20;
const RUNTIME = 'io.containerd.runc.v2';

async function run() {
  const why = missing();
  if (why !== undefined) {
    console.log(`containerd benchmark not run: ${why}`);
    return;
  }
  const started = process.hrtime.bigint();
  const env = await startContainerd();
  const startMs = Number(process.hrtime.bigint() - started) / 1e6;
  try {
    const ns = `bench-${process.pid}`;
    const importMs = await importImages(env, ns);
    const times = [];
    for (let i = 0; i < ROUNDS; i++) {
      times.push(await timedCtr(env, ns, ['run', '--rm', '--runtime', RUNTIME, BUSYBOX_IMAGE, `true-${i}`, 'true']));
    }
    const rest = times.slice(1);
    console.log(
      `private containerd: started in ${startMs.toFixed(0)} ms, busybox+pause imported in ${importMs.toFixed(0)} ms`,
    );
    console.log(
      `ctr run --rm (${RUNTIME}) busybox true: median ${median(times).toFixed(1)} ms of ${ROUNDS} ` +
        `(min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)}); ` +
        `first in a fresh namespace ${times[0].toFixed(1)} ms, median of the other ${rest.length} ${median(rest).toFixed(1)} ms`,
    );
  } finally {
    await stopContainerd(env);
  }
}

module.exports = { run };
