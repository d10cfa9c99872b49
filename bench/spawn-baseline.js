'use strict';
// The baseline of the lifecycle figures: Node's own spawn-and-wait of /bin/true, timed in
// a small Node process of its own. Timed in the benchmark process instead, each fork would
// copy the page tables of everything the benchmark has loaded and warmed (a client after
// 800 lifecycles is several MB larger), which slows the baseline and flatters the ratio.
// Started with an IPC channel: each message { count } is answered with that many times (ms).
const { spawn } = require('node:child_process');

function spawnAndWait() {
  return new Promise((resolve, reject) => {
    const c = spawn('/bin/true', [], { stdio: 'ignore' });
    c.once('error', reject);
    c.once('exit', resolve);
  });
}

process.on('message', async ({ count }) => {
  const times = [];
  for (let i = 0; i < count; i++) {
    const t = process.hrtime.bigint();
    await spawnAndWait();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  process.send(times);
});
