'use strict';
// Checkpoint and restore with criu, through containerd's runc shim and through skiff side by
// side: `ctr container checkpoint --task` of a running counter and `ctr container restore
// --live` of it (the count goes on), the CheckpointTaskRequest options ctr sends (`exit`,
// `work_path`), a dump criu refuses (one error, the container running on), and CRI's
// CheckpointContainer writing kubelet's archive (containerd 2.x: 1.7's CRI answers Unimplemented).
// Restoring from that archive is CRI's CreateContainer with the archive as its image (ctr restores
// only checkpoint images), which containerd 2.1 does after pulling the base image from its
// registry (CRImportCheckpoint): not in the bed, which has no network (docs/cri.md).
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { after, before, describe, it } = require('node:test');
const { criClient } = require('../../scripts/containerd/cri-client');
const { removePod, startPod } = require('../../scripts/containerd/cri-pods');
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
  waitFor,
} = require('./support');

/** A shell that counts in memory and writes "<its start time> <count>" to /tmp/count. */
const COUNTER = [
  'sh',
  '-c',
  'start=$(date +%s)$$; i=0; while :; do i=$((i+1)); echo "$start $i" > /tmp/count; sleep 0.3; done',
];

/** containerd's major version, as `ctr version` prints the server's. */
function containerdMajor() {
  const server = sh('ctr version').stdout.split('Server:')[1] ?? '';
  return Number(/Version:\s*v?(\d+)/.exec(server)?.[1] ?? 0);
}

const MAJOR = containerdMajor();

/** What each runtime showed, compared at the end. */
const seen = {};

for (const [name, runtime] of Object.entries(RUNTIMES)) {
  describe(`checkpoint and restore through ${name} (${runtime})`, { timeout: 20 * SLOW_MS }, () => {
    const ns = namespaceFor('checkpoint', name);
    const dir = fs.mkdtempSync(`/var/lib/vm-checkpoint-${name}-`);
    let execs = 0;
    seen[name] = {};

    /** The counter's "<start> <count>" as an exec reads it, or undefined while there is none. */
    const count = async (id) => {
      const read = await ctr(ns, ['task', 'exec', '--exec-id', `read${++execs}`, id, 'cat', '/tmp/count']);
      if (read.status !== 0) return undefined;
      const [start, n] = read.stdout.trim().split(' ');
      return n === undefined ? undefined : { start, n: Number(n) };
    };
    const status = async (id) =>
      (await ctrOk(ns, ['task', 'ls']))
        .split('\n')
        .find((l) => l.startsWith(`${id} `))
        ?.split(/\s+/)[2];
    const remove = async (id) => {
      await ctr(ns, ['task', 'kill', '-s', 'KILL', id]);
      await waitFor(`${id} to stop`, async () => (await ctr(ns, ['task', 'delete', id])).status === 0);
      await ctrOk(ns, ['container', 'delete', id]);
    };

    before(() => importImage(ns));
    after(async () => {
      await cleanNamespace(ns);
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('checkpoints a running counter (ctr c checkpoint --task) and restores it, the count going on', async () => {
      const id = `counter-${name}`;
      await ctrOk(ns, ['run', '-d', '--runtime', runtime, IMAGE, id, ...COUNTER]);
      const before = await waitFor('the counter at 3', async () => ((await count(id))?.n >= 3 ? count(id) : undefined));
      const ref = `checkpoint/${id}:1`;
      const checkpointed = await ctr(ns, ['container', 'checkpoint', '--task', '--rw', id, ref]);
      seen[name].checkpoint = checkpointed.status;
      assert.equal(checkpointed.status, 0, checkpointed.stderr);
      // Left running: it counts on.
      assert.equal(await status(id), 'RUNNING');
      await waitFor('the counter to go on', async () => (await count(id))?.n > before.n + 1);
      await remove(id);
      const restored = await ctr(ns, ['container', 'restore', '--live', '--rw', id, ref]);
      seen[name].restore = restored.status;
      assert.equal(restored.status, 0, restored.stderr);
      assert.equal(await status(id), 'RUNNING');
      // The same shell, from its memory, counting on (the rw layer came back with /tmp/count:
      // two readings apart show it counts): its start time, a count past the one read before.
      const first = await waitFor('the restored counter', () => count(id));
      const after = await waitFor('the restored counter to go on', async () => {
        const now = await count(id);
        return now !== undefined && now.n > first.n ? now : undefined;
      });
      assert.equal(after.start, before.start, 'the restored shell is the checkpointed one');
      assert.ok(after.n > before.n, `${after.n} > ${before.n}`);
      await remove(id);
    });

    // containerd 1.7's ctr puts --exit and --work-path in the request for runc's runtime types alone.
    const optionsSkip = name === 'skiff' && MAJOR < 2 && "containerd 1.7's ctr sends these options to runc alone";
    it(
      'takes ctr task checkpoint --exit and --work-path: the task stops, criu work files kept',
      { skip: optionsSkip },
      async () => {
        const id = `exit-${name}`;
        await ctrOk(ns, ['run', '-d', '--runtime', runtime, IMAGE, id, ...COUNTER]);
        await waitFor('the counter', () => count(id));
        const work = path.join(dir, 'work');
        const checkpointed = await ctr(ns, ['task', 'checkpoint', '--exit', '--work-path', work, id]);
        assert.equal(checkpointed.status, 0, checkpointed.stderr);
        await waitFor(`${id} to stop`, async () => (await status(id)) === 'STOPPED');
        assert.ok(fs.existsSync(path.join(work, 'dump.log')), `criu's dump.log in ${work}`);
        seen[name].exit = 'STOPPED';
        await ctrOk(ns, ['task', 'delete', id]);
        await ctrOk(ns, ['container', 'delete', id]);
      },
    );

    it('answers a dump criu refuses with one error naming its log; the container runs on', async () => {
      const id = `ghost-${name}`;
      // A deleted file of 2 MiB held open: criu keeps deleted files up to 1 MiB (--ghost-limit).
      const ghost = 'dd if=/dev/zero of=/tmp/big bs=1M count=2 2>/dev/null; exec 3</tmp/big; rm /tmp/big; ';
      await ctrOk(ns, ['run', '-d', '--runtime', runtime, IMAGE, id, 'sh', '-c', `${ghost}${COUNTER[2]}`]);
      await waitFor('the counter', () => count(id));
      const refused = await ctr(ns, ['task', 'checkpoint', id]);
      assert.notEqual(refused.status, 0);
      assert.match(refused.stderr, /criu-dump\.log/);
      seen[name].refused = true;
      assert.equal(await status(id), 'RUNNING');
      const then = await count(id);
      await waitFor('the counter to go on', async () => (await count(id))?.n > then.n);
      await remove(id);
    });
  });
}

describe('side by side', () => {
  it('skiff checkpoints, restores and refuses as the runc shim does', () => {
    const runc = { ...seen.runc };
    if (MAJOR < 2) delete runc.exit;
    assert.deepEqual(seen.skiff, runc);
  });
});

// Kubernetes' forensic checkpoint: kubelet's CheckpointContainer through the CRI plugin (2.x).
const CRI_SKIP = MAJOR < 2 && "containerd 1.7's CRI answers CheckpointContainer with Unimplemented";

describe('CRI CheckpointContainer', { timeout: 20 * SLOW_MS, skip: CRI_SKIP }, () => {
  const cri = criClient(ADDRESS, { deadlineMs: SLOW_MS });
  const dir = fs.mkdtempSync('/var/lib/vm-checkpoint-cri-');
  const logDirectory = fs.mkdtempSync('/var/log/vm-checkpoint-cri-');
  const pods = [];
  const entries = {};

  after(async () => {
    for (const id of pods) await removePod(cri, id).catch(() => undefined);
    cri.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const handler of ['runc', 'skiff']) {
    it(`writes kubelet's archive through the ${handler} handler, the container running on`, async () => {
      const pod = { name: `ckpt-${handler}`, uid: `ckpt-${handler}-${process.pid}`, logDirectory };
      // The counter logs too: its stdout is CRI's log, through the FIFOs containerd reads.
      const command = ['sh', '-c', COUNTER[2].replace('echo "$start $i" >', 'echo "$start $i"; echo "$start $i" >')];
      const { podSandboxId, containerIds } = await startPod(cri, {
        handler,
        pod,
        containers: [{ name: 'counter', command }],
      });
      pods.push(podSandboxId);
      const [id] = containerIds;
      const count = async (containerId) => {
        const read = await cri.runtime('ExecSync', { containerId, cmd: ['cat', '/tmp/count'], timeout: 60 });
        const [start, n] = read.stdout.toString().trim().split(' ');
        return read.exitCode === 0 && n !== undefined ? { start, n: Number(n) } : undefined;
      };
      await waitFor('the counter at 3', async () => (await count(id))?.n >= 3);
      const archive = path.join(dir, `${handler}.tar`);
      await cri.runtime('CheckpointContainer', { containerId: id, location: archive });
      const listed = sh(`tar -tf ${archive}`);
      assert.equal(listed.status, 0, listed.stderr);
      const names = listed.stdout
        .split('\n')
        .filter(Boolean)
        .map((n) => n.replace(/^\.\//, ''));
      entries[handler] = names;
      for (const file of ['config.dump', 'spec.dump', 'status.dump', 'checkpoint/inventory.img'])
        assert.ok(names.includes(file), `${file} in the archive: ${names.join(' ')}`);
      if (handler === 'skiff') assert.ok(names.includes('checkpoint/skiff-stdio.json'), names.join(' '));
      const { status } = await cri.runtime('ContainerStatus', { containerId: id });
      assert.equal(status.state, 'CONTAINER_RUNNING');
      const then = await count(id);
      await waitFor('the counter to go on', async () => (await count(id))?.n > then.n);
      await cri.runtime('StopContainer', { containerId: id, timeout: 2 });
      await cri.runtime('RemoveContainer', { containerId: id });
    });
  }

  it('the skiff handler writes what the runc handler writes', () => {
    // CRI gives the runc handler alone a criu work directory in the archive (dump.log,
    // stats-dump); skiff adds its record of the stdio criu took as external.
    const runcOnly = new Set(['dump.log', 'stats-dump']);
    const skiffOnly = new Set(['checkpoint/skiff-stdio.json']);
    const top = (names, drop) => names.filter((n) => !drop.has(n) && !/^checkpoint\/.+\.img$/.test(n)).sort();
    assert.deepEqual(top(entries.skiff, skiffOnly), top(entries.runc, runcOnly));
  });
});
