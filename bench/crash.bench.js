'use strict';
// A SIGKILL of skiff's serving process under containerd, as a node meets one
// (docs/failure-domains.md): three `ctr run -d` containers behind their pod keepers, a client
// holding a connection to one keeper as containerd does, and the serving process killed round
// after round. Measured: the time from the kill to the first call answered on that connection
// by the new serving process (a Pids: the keeper starts one, which takes the tasks over), target
// <= 200 ms; beside it, a State (answered by the pod keeper from the serving process's last
// answer after 100 ms: docs/keeper-protocol.md, "State from the keeper") and the `ctr task ls`
// an operator would type, ctr's own start included.
// containerd's runc shim has no such figure: the containers of a killed runc shim are lost.
// Needs root, containerd, runc and busybox-static; says so and returns otherwise.
const { missing, startContainerd, importImages, timedCtr, stopContainerd, BUSYBOX_IMAGE } = require('./containerd-env');
const { servingProcesses, taskAddress } = require('../scripts/containerd/runtime-processes');
const { median, report } = require('./stats');

const CONTAINERS = 3;
const ROUNDS = 6;
const TARGET_MS = 200;
const RUNTIME = 'io.containerd.skiff.v2';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;

/** The one serving process behind `address`'s keeper, once one runs. */
async function servingProcess(address) {
  for (let i = 0; i < 100; i++) {
    const [pid, ...more] = servingProcesses(address);
    if (pid !== undefined && more.length === 0) return pid;
    await sleep(50);
  }
  throw new Error(`no single skiff serving process behind ${address}`);
}

async function run() {
  const why = missing();
  if (why !== undefined) {
    console.log(`crash benchmark not run: ${why}`);
    return;
  }
  const { TtrpcTaskClient } = require('../dist/adapters/shim/outbound/task-client/ttrpc-task-client');
  const env = await startContainerd();
  const ns = `crash-${process.pid}`;
  const ids = Array.from({ length: CONTAINERS }, (_, i) => `c${i}`);
  let client;
  try {
    await importImages(env, ns);
    for (const id of ids)
      await timedCtr(env, ns, ['run', '-d', '--runtime', RUNTIME, BUSYBOX_IMAGE, id, 'sleep', '100000']);
    const address = taskAddress(env.paths.bundles, ns, ids[0]);
    client = new TtrpcTaskClient(address);
    await client.state({ id: ids[0], execId: '' });
    const firstCall = [];
    const firstState = [];
    const ctrLs = [];
    for (let round = 0; round < ROUNDS; round++) {
      process.kill(await servingProcess(address), 'SIGKILL');
      const killed = process.hrtime.bigint();
      const pids = await client.pids(ids[0]);
      firstCall.push(ms(killed));
      if (pids.length === 0) throw new Error(`${ids[0]} has no process after the kill`);
      await sleep(300);
      process.kill(await servingProcess(address), 'SIGKILL');
      const killedForState = process.hrtime.bigint();
      const state = await client.state({ id: ids[0], execId: '' });
      firstState.push(ms(killedForState));
      if (state.status !== 'running')
        throw new Error(`${ids[0]} is not RUNNING after the kill (status ${state.status})`);
      await sleep(300);
      process.kill(await servingProcess(address), 'SIGKILL');
      const killedAgain = process.hrtime.bigint();
      await timedCtr(env, ns, ['task', 'ls']);
      ctrLs.push(ms(killedAgain));
      await sleep(300);
    }
    const listed = await env.ctr(ns, ['task', 'ls']);
    const running = ids.filter((id) => new RegExp(`^${id}\\s+\\d+\\s+RUNNING$`, 'm').test(listed.stdout)).length;
    console.log(
      `after ${3 * ROUNDS} kills of the serving process: ${running} of ${CONTAINERS} containers RUNNING; ` +
        `first Pids ${firstCall.map((t) => t.toFixed(0)).join(', ')} ms; first State ${firstState.map((t) => t.toFixed(0)).join(', ')} ms; ` +
        `ctr task ls ${ctrLs.map((t) => t.toFixed(0)).join(', ')} ms`,
    );
    const first = median(firstCall);
    report(
      'crash of the serving process to the first call it serves again (Pids on a held connection)',
      first / TARGET_MS,
      `median of ${ROUNDS}: ${first.toFixed(0)} ms, max ${Math.max(...firstCall).toFixed(0)} ms, vs ${TARGET_MS} ms; ` +
        `State (its keeper's answer) ${median(firstState).toFixed(0)} ms; ctr task ls ${median(ctrLs).toFixed(0)} ms with ctr's start`,
      '<=',
      1.0,
    );
    if (running !== CONTAINERS) console.log(`MISS: ${CONTAINERS - running} containers lost to the kills`);
  } finally {
    client?.close();
    for (const id of ids) await env.ctr(ns, ['task', 'rm', '-f', id]).catch(() => undefined);
    for (const id of ids) await env.ctr(ns, ['container', 'rm', id]).catch(() => undefined);
    await stopContainerd(env);
  }
}

module.exports = { run };
