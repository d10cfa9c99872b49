'use strict';
// What dies with what (docs/failure-domains.md), on the node's containerd: a SIGKILL of skiff's
// serving process loses nothing that runs; a SIGKILL of a pod keeper loses its own container
// only, as a SIGKILL of the runc shim does; a restart of containerd (its systemd unit) loses
// nothing, through either runtime.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { after, before, describe, it } = require('node:test');
const {
  isPodKeeper,
  servingProcesses,
  servingPid,
  standbyPids,
} = require('../../scripts/containerd/runtime-processes');
const {
  ADDRESS,
  IMAGE,
  RUNTIMES,
  SLOW_MS,
  cleanNamespace,
  ctr,
  ctrOk,
  importImage,
  namespaceFor,
  sh,
  shimAddress,
  waitFor,
} = require('./support');

async function statusOf(ns, id) {
  const line = (await ctrOk(ns, ['task', 'ls'])).split('\n').find((l) => l.startsWith(`${id} `));
  return line?.trim().split(/\s+/)[2];
}

/** A detached container writing a line a tenth of a second to its file:// log. */
async function counter(ns, runtime, id, dir) {
  const log = path.join(dir, `${id}.log`);
  await ctrOk(ns, [
    'run',
    '-d',
    '--runtime',
    runtime,
    '--log-uri',
    `file://${log}`,
    IMAGE,
    id,
    'sh',
    '-c',
    'i=0; while :; do i=$((i+1)); echo $i; sleep 0.1; done',
  ]);
  return log;
}

/** Resolves once the file has grown past its size now. */
function grows(file) {
  const size = fs.statSync(file).size;
  return waitFor(`${file} to grow`, () => fs.statSync(file).size > size);
}

for (const [name, runtime] of Object.entries(RUNTIMES)) {
  describe(`failures through ${name}`, { timeout: 20 * SLOW_MS }, () => {
    const ns = namespaceFor('crash', name);
    const dir = fs.mkdtempSync(`/var/tmp/vm-crash-${name}-`);

    before(() => importImage(ns));
    after(() => cleanNamespace(ns));

    if (name === 'skiff')
      it('a SIGKILL of the serving process loses nothing that runs', async () => {
        const log = await counter(ns, runtime, 'survivor', dir);
        await grows(log);
        const address = shimAddress(ns, 'survivor');
        assert.ok(isPodKeeper(address), `behind a pod keeper: ${address}`);
        const [serving] = servingProcesses(address, ns);
        assert.ok(serving !== undefined, 'a serving process');
        process.kill(serving, 'SIGKILL');
        const exec = await ctr(ns, ['task', 'exec', '--exec-id', 'after', 'survivor', 'echo', 'served']);
        assert.deepEqual([exec.status, exec.stdout], [0, 'served\n'], `ctr task exec: ${exec.stderr}`);
        const [next] = servingProcesses(address, ns);
        assert.ok(next !== undefined && next !== serving, `a new serving process (was ${serving}, now ${next})`);
        assert.equal(await statusOf(ns, 'survivor'), 'RUNNING');
        await grows(log);
        await ctrOk(ns, ['task', 'kill', '-s', 'KILL', 'survivor']);
        await waitFor('survivor to stop', async () => (await statusOf(ns, 'survivor')) === 'STOPPED');
        await ctrOk(ns, ['task', 'delete', 'survivor']);
        await ctrOk(ns, ['container', 'delete', 'survivor']);
      });

    it(`a SIGKILL of a container's shim (${name === 'skiff' ? 'its pod keeper' : 'the runc shim'}) loses that container only`, async () => {
      await counter(ns, runtime, 'lost', dir);
      const kept = await counter(ns, runtime, 'kept', dir);
      const shim = servingPid(shimAddress(ns, 'lost'));
      assert.ok(shim !== undefined, 'the shim listening on the task address');
      process.kill(shim, 'SIGKILL');
      await waitFor('containerd to see the lost task end', async () => {
        const status = await statusOf(ns, 'lost');
        return status === undefined || status === 'STOPPED';
      });
      await ctr(ns, ['task', 'delete', 'lost']);
      await ctrOk(ns, ['container', 'delete', 'lost']);
      assert.equal(await statusOf(ns, 'kept'), 'RUNNING');
      await grows(kept);
      const exec = await ctr(ns, ['task', 'exec', '--exec-id', 'still', 'kept', 'echo', 'here']);
      assert.deepEqual([exec.status, exec.stdout], [0, 'here\n'], `ctr task exec: ${exec.stderr}`);
      await ctrOk(ns, ['task', 'kill', '-s', 'KILL', 'kept']);
      await waitFor('kept to stop', async () => (await statusOf(ns, 'kept')) === 'STOPPED');
      await ctrOk(ns, ['task', 'delete', 'kept']);
      await ctrOk(ns, ['container', 'delete', 'kept']);
    });

    it('a restart of containerd loses nothing: the container runs on and is served', async () => {
      const log = await counter(ns, runtime, 'steady', dir);
      const restart = sh('systemctl restart containerd');
      assert.equal(restart.status, 0, restart.stderr);
      await waitFor('containerd to answer', async () => (await ctr(ns, ['version'])).status === 0);
      assert.equal(await statusOf(ns, 'steady'), 'RUNNING');
      await grows(log);
      const exec = await ctr(ns, ['task', 'exec', '--exec-id', 'back', 'steady', 'echo', 'back']);
      assert.deepEqual([exec.status, exec.stdout], [0, 'back\n'], `ctr task exec: ${exec.stderr}`);
      await ctrOk(ns, ['task', 'kill', '-s', 'KILL', 'steady']);
      await waitFor('steady to stop', async () => (await statusOf(ns, 'steady')) === 'STOPPED');
      await ctrOk(ns, ['task', 'delete', 'steady']);
      await ctrOk(ns, ['container', 'delete', 'steady']);
    });
  });
}

/** The unit's main pid (its supervisor), 0 when it is not running. */
function unitPid() {
  return Number(sh('systemctl show -p MainPID --value skiff@k8s.io').stdout.trim());
}

function parentOf(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

// The node daemon (docs/node-daemon.md): skiff@k8s.io, installed and enabled as docs/install.md says.
describe('the node daemon skiff@k8s.io', { timeout: 20 * SLOW_MS }, () => {
  const ns = 'k8s.io';
  const id = `vm-daemon-${process.pid}`;
  const dir = fs.mkdtempSync('/var/tmp/vm-daemon-');
  after(async () => {
    // Started again whatever failed, so that the suites after this one meet the node's unit.
    sh('systemctl start skiff@k8s.io');
    await ctr(ns, ['task', 'kill', '-s', 'KILL', id]);
    await waitFor(`${id} to stop`, async () => (await statusOf(ns, id)) !== 'RUNNING').catch(() => undefined);
    await ctr(ns, ['task', 'delete', id]);
    await ctr(ns, ['container', 'delete', id]);
  });

  it('is active from boot, and serves the first container of k8s.io', async () => {
    assert.equal(sh('systemctl is-active skiff@k8s.io').stdout.trim(), 'active');
    const supervisor = unitPid();
    assert.ok(supervisor > 0, 'the unit has a main pid');
    // Its standby beside it (docs/node-daemon.md, "The standby"), started 10 s after boot's serving process.
    await waitFor('the standby', () => standbyPids(ns, ADDRESS).length === 1);
    assert.match(
      sh('systemctl status --no-pager skiff@k8s.io').stdout,
      /serving namespace k8s\.io \(serving process \d+, standby \d+\)/,
    );
    const log = await counter(ns, RUNTIMES.skiff, id, dir);
    await grows(log);
    const [serving] = servingProcesses(shimAddress(ns, id), ns);
    assert.ok(serving !== undefined, 'a serving process');
    assert.equal(parentOf(serving), supervisor, "the unit's serving process serves it");
  });

  it('mends a SIGKILL of its serving process itself, with the same unit', async () => {
    const supervisor = unitPid();
    const [serving] = servingProcesses(shimAddress(ns, id), ns);
    const [standby] = standbyPids(ns, ADDRESS);
    process.kill(serving, 'SIGKILL');
    const killed = Date.now();
    const exec = await ctr(ns, ['task', 'exec', '--exec-id', 'after-kill', id, 'echo', 'served']);
    console.log(`SIGKILL of the serving process to an exec served: ${Date.now() - killed} ms`);
    assert.deepEqual([exec.status, exec.stdout], [0, 'served\n'], `ctr task exec: ${exec.stderr}`);
    const [next] = servingProcesses(shimAddress(ns, id), ns);
    assert.equal(next, standby, `the standby serves (was ${serving}, standby ${standby}, now ${next})`);
    assert.equal(parentOf(next), supervisor);
    assert.equal(unitPid(), supervisor);
  });

  it('is left alone by a restart of containerd', async () => {
    const supervisor = unitPid();
    const [serving] = servingProcesses(shimAddress(ns, id), ns);
    assert.equal(sh('systemctl restart containerd').status, 0);
    await waitFor('containerd to answer', async () => (await ctr(ns, ['version'])).status === 0);
    assert.equal(unitPid(), supervisor);
    assert.deepEqual(servingProcesses(shimAddress(ns, id), ns), [serving]);
    assert.equal(await statusOf(ns, id), 'RUNNING');
  });

  it('stops without ending a container, and takes its tasks back when started again', async () => {
    const log = path.join(dir, `${id}.log`);
    const stop = sh('systemctl stop skiff@k8s.io');
    assert.equal(stop.status, 0, stop.stderr);
    assert.equal(sh('systemctl is-active skiff@k8s.io').stdout.trim(), 'inactive');
    await grows(log);
    // ctr's State waits 2 s at most (containerd's tasks service): under emulation the serving
    // process the keeper starts takes longer, and the task reads UNKNOWN until it serves.
    await waitFor(`${id} RUNNING again`, async () => (await statusOf(ns, id)) === 'RUNNING');
    // Served meanwhile by a serving process its pod keeper started, as on a node without the unit.
    const kept = await ctr(ns, ['task', 'exec', '--exec-id', 'stopped', id, 'echo', 'kept']);
    assert.deepEqual([kept.status, kept.stdout], [0, 'kept\n']);
    const [keepers] = servingProcesses(shimAddress(ns, id), ns);
    assert.ok(keepers !== undefined);
    const start = sh('systemctl start skiff@k8s.io');
    assert.equal(start.status, 0, start.stderr);
    await waitFor('the unit to serve again', () => {
      const [now] = servingProcesses(shimAddress(ns, id), ns);
      return now !== undefined && now !== keepers && parentOf(now) === unitPid();
    });
    const back = await ctr(ns, ['task', 'exec', '--exec-id', 'started', id, 'echo', 'back']);
    assert.deepEqual([back.status, back.stdout], [0, 'back\n'], `ctr task exec: ${back.stderr}`);
    await grows(log);
  });
});
