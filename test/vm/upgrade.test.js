'use strict';
// An upgrade in place on a node (docs/upgrade.md): `npm install -g` of a newer package while a
// pod's log streams, then `skiff containerd restart`: the pod runs on, its log has every line,
// calls are served by a serving process of the new version. The runc shim has no counterpart
// (its shims keep their binary until their pod ends), so this suite is skiff's alone.
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { after, describe, it } = require('node:test');
const { criClient } = require('../../scripts/containerd/cri-client');
const { removePod, startPod } = require('../../scripts/containerd/cri-pods');
const { servingProcesses } = require('../../scripts/containerd/runtime-processes');
const { ADDRESS, SLOW_MS, shimAddress, waitFor } = require('./support');

const NEXT = '/var/lib/skiff-vm/skiff-next.tgz';

/** The counter lines of a CRI log ("<time> stdout F <n>"). */
function counted(log) {
  return fs
    .readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => Number(line.split(' ').pop()));
}

describe('an upgrade of skiff in place, under a running pod', { timeout: 30 * SLOW_MS }, () => {
  const cri = criClient(ADDRESS, { deadlineMs: SLOW_MS });
  const logDirectory = fs.mkdtempSync('/var/log/vm-upgrade-');
  let podSandboxId;
  after(async () => {
    if (podSandboxId !== undefined) await removePod(cri, podSandboxId).catch(() => undefined);
    cri.close();
  });

  it('npm install -g of a newer package, then skiff containerd restart: nothing lost, the new version serves', async () => {
    const command = ['sh', '-c', 'i=0; while :; do i=$((i+1)); echo $i; sleep 0.2; done'];
    const pod = await startPod(cri, {
      handler: 'skiff',
      pod: { name: 'upgrade', uid: `upgrade-${process.pid}`, logDirectory },
      containers: [{ name: 'counter', command }],
    });
    podSandboxId = pod.podSandboxId;
    const [containerId] = pod.containerIds;
    const log = path.join(logDirectory, 'counter_0.log');
    await waitFor('the counter to log', () => fs.existsSync(log) && counted(log).length > 3);
    const address = shimAddress('k8s.io', podSandboxId);
    const [before] = servingProcesses(address, 'k8s.io');

    const version = JSON.parse(execFileSync('tar', ['-xzOf', NEXT, 'package/package.json'])).version;
    execFileSync(
      'npm',
      [
        'install',
        '-g',
        '--offline',
        '--no-audit',
        '--no-fund',
        '--cache',
        '/var/cache/skiff-vm-npm',
        '--logs-max=0',
        NEXT,
      ],
      { stdio: 'ignore' },
    );
    assert.match(execFileSync('skiff', ['--version'], { encoding: 'utf8' }), new RegExp(`^skiff-cli/${version} `));
    const restart = execFileSync('skiff', ['containerd', 'restart', '--namespace', 'k8s.io'], { encoding: 'utf8' });

    const [now] = servingProcesses(address, 'k8s.io');
    assert.ok(now !== undefined && now !== before, `a new serving process (was ${before}, now ${now}): ${restart}`);
    // The node daemon (docs/node-daemon.md) follows the successor: still its unit's, and still active.
    const unit = Number(
      spawnSync('systemctl', ['show', '-p', 'MainPID', '--value', 'skiff@k8s.io'], { encoding: 'utf8' }).stdout,
    );
    const stat = fs.readFileSync(`/proc/${now}/stat`, 'utf8');
    assert.equal(
      Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]),
      unit,
      "the new serving process is the unit's",
    );
    const exec = await cri.runtime('ExecSync', { containerId, cmd: ['echo', 'served'], timeout: 60 });
    assert.equal(exec.stdout.toString(), 'served\n');
    const status = (await cri.runtime('ContainerStatus', { containerId })).status;
    assert.equal(status.state, 'CONTAINER_RUNNING');
    const seen = counted(log).length;
    await waitFor('the log to go on', () => counted(log).length > seen + 3);
    const lines = counted(log);
    assert.deepEqual(
      lines,
      lines.map((_, i) => i + 1),
      'every line of the counter, in order',
    );
  });
});
