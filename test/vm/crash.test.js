'use strict';
// What dies with what (docs/failure-domains.md), on the node's containerd: a SIGKILL of skiff's
// serving process loses nothing that runs; a SIGKILL of a pod keeper loses its own container
// only, as a SIGKILL of the runc shim does; a restart of containerd (its systemd unit) loses
// nothing, through either runtime.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { after, before, describe, it } = require('node:test');
const { isPodKeeper, servingProcesses, servingPid } = require('../../scripts/containerd/runtime-processes');
const {
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
        const [serving] = servingProcesses(address);
        assert.ok(serving !== undefined, 'a serving process');
        process.kill(serving, 'SIGKILL');
        const exec = await ctr(ns, ['task', 'exec', '--exec-id', 'after', 'survivor', 'echo', 'served']);
        assert.deepEqual([exec.status, exec.stdout], [0, 'served\n']);
        const [next] = servingProcesses(address);
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
      assert.deepEqual([exec.status, exec.stdout], [0, 'here\n']);
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
      assert.deepEqual([exec.status, exec.stdout], [0, 'back\n']);
      await ctrOk(ns, ['task', 'kill', '-s', 'KILL', 'steady']);
      await waitFor('steady to stop', async () => (await statusOf(ns, 'steady')) === 'STOPPED');
      await ctrOk(ns, ['task', 'delete', 'steady']);
      await ctrOk(ns, ['container', 'delete', 'steady']);
    });
  });
}
