'use strict';
// Checkpoint and restore with criu, through containerd's runc shim and through skiff side by
// side: `ctr container checkpoint --task` of a running counter and `ctr container restore
// --live` of it (the count goes on), the CheckpointTaskRequest options ctr sends (`exit`,
// `work_path`; containerd 1.7's ctr sends them to runc's runtime types alone), a dump criu
// refuses (one error, the container running on), and CRI's CheckpointContainer writing
// kubelet's archive, then CreateContainer with that archive as its image restoring it
// (containerd 2.x; 1.7's CRI answers CheckpointContainer Unimplemented). containerd 2.1's CRI
// restore first pulls the checkpoint's base image by its NAME@DIGEST (CRImportCheckpoint), so
// the pod's image comes from the registry stand-in on 127.0.0.1 (the guests have no network;
// docs/cri.md).
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { after, before, describe, it } = require('node:test');
const { status: grpcStatus } = require('@grpc/grpc-js');
const { criClient } = require('../../scripts/containerd/cri-client');
const { containerConfig, removePod, startPod } = require('../../scripts/containerd/cri-pods');
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
  registryStandIn,
  sh,
  waitFor,
} = require('./support');

/** A shell that counts in memory and writes "<its start time> <count>" to /tmp/count. */
const COUNTER = [
  'sh',
  '-c',
  'start=$(date +%s)$$; i=0; while :; do i=$((i+1)); echo "$start $i" > /tmp/count; sleep 0.3; done',
];

/**
 * The counter's reading once it has counted on from now. A read can find /tmp/count empty,
 * between the shell's `>` and its echo: the reading to go on from is waited for too.
 */
async function countsOn(read) {
  const first = await waitFor('a count', read);
  return waitFor('the counter to go on', async () => {
    const reading = await read();
    return reading !== undefined && reading.n > first.n ? reading : undefined;
  });
}

/**
 * The restored shell is the checkpointed one, from its memory (its start time), counting on
 * (two readings apart) past `atCheckpoint`, the reading taken at the checkpoint; resolves the
 * last reading. `read` gives a reading.
 */
async function assertCountsOn(read, atCheckpoint) {
  const now = await countsOn(read);
  assert.equal(now.start, atCheckpoint.start, 'the restored shell is the checkpointed one');
  assert.ok(now.n > atCheckpoint.n, `${now.n} > ${atCheckpoint.n}`);
  return now;
}

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
      // The rw layer came back with /tmp/count.
      await assertCountsOn(() => count(id), before);
      await remove(id);
    });

    // containerd 1.7's ctr puts --exit and --work-path in the request for runc's runtime types
    // alone (its withCheckpointOpts): skiff is then asked for a plain dump, which leaves the task
    // running and keeps no criu work files. 2.x's ctr sends them to any runtime.
    const optionsSent = !(name === 'skiff' && MAJOR < 2);
    it(
      optionsSent
        ? 'takes ctr task checkpoint --exit and --work-path: the task stops, criu work files kept'
        : "is sent neither --exit nor --work-path by containerd 1.7's ctr task checkpoint: the task runs on",
      async () => {
        const id = `exit-${name}`;
        await ctrOk(ns, ['run', '-d', '--runtime', runtime, IMAGE, id, ...COUNTER]);
        await waitFor('the counter', () => count(id));
        const work = path.join(dir, 'work');
        const checkpointed = await ctr(ns, ['task', 'checkpoint', '--exit', '--work-path', work, id]);
        assert.equal(checkpointed.status, 0, checkpointed.stderr);
        if (optionsSent) {
          await waitFor(`${id} to stop`, async () => (await status(id)) === 'STOPPED');
          assert.ok(fs.existsSync(path.join(work, 'dump.log')), `criu's dump.log in ${work}`);
          seen[name].exit = 'STOPPED';
          await ctrOk(ns, ['task', 'delete', id]);
          await ctrOk(ns, ['container', 'delete', id]);
          return;
        }
        assert.equal(await status(id), 'RUNNING');
        assert.equal(fs.existsSync(path.join(work, 'dump.log')), false, `no dump.log in ${work}`);
        await countsOn(() => count(id));
        seen[name].exit = 'RUNNING';
        await remove(id);
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
      await countsOn(() => count(id));
      await remove(id);
    });
  });
}

describe('side by side', () => {
  it('skiff checkpoints, restores and refuses as the runc shim does', () => {
    const runc = { ...seen.runc };
    // containerd 1.7's ctr asks skiff for a plain dump where it asks runc to stop the task.
    if (MAJOR < 2) runc.exit = 'RUNNING';
    assert.deepEqual(seen.skiff, runc);
  });
});

// Kubernetes' forensic checkpoint and its restore, through the CRI plugin as kubelet drives it:
// CheckpointContainer writes kubelet's archive; CreateContainer with that archive as its image,
// then StartContainer, restores it (containerd 2.x's CRImportCheckpoint). containerd 1.7's CRI
// answers CheckpointContainer Unimplemented (its pkg/cri/server and sbserver alike).
describe('CRI CheckpointContainer and a restore from its archive', { timeout: 30 * SLOW_MS }, () => {
  const cri = criClient(ADDRESS, { deadlineMs: SLOW_MS });
  const dir = fs.mkdtempSync('/var/lib/vm-checkpoint-cri-');
  const logs = fs.mkdtempSync('/var/log/vm-checkpoint-cri-');
  const pods = [];
  /** Each handler's archive entries, and what its checkpoint and restore showed. */
  const entries = {};
  const shown = {};
  /** What a restore needs of each handler's checkpoint. */
  const checkpointed = {};
  let registry;
  let image = IMAGE;

  before(async () => {
    if (MAJOR < 2) return;
    // The restore pulls the base image by the repo digest the checkpoint recorded (its
    // config.dump's rootfsImageRef): an image pulled through CRI has one, an imported one not.
    registry = await registryStandIn(dir);
    image = `localhost:${registry.port}/skiff-busybox:latest`;
    await cri.image('PullImage', { image: { image } });
    const { image: pulled } = await cri.image('ImageStatus', { image: { image } });
    assert.ok(
      pulled.repoDigests.some((d) => d.startsWith(`localhost:${registry.port}/skiff-busybox@sha256:`)),
      `a repo digest: ${pulled.repoDigests.join(' ')}`,
    );
  });

  after(async () => {
    for (const id of pods) await removePod(cri, id).catch(() => undefined);
    cri.close();
    await registry?.stop();
    // Only the stand-in's names: CRI's RemoveImage would take the imported busybox (the same image) too.
    if (registry !== undefined) {
      const names = (await ctr('k8s.io', ['images', 'ls', '-q'])).stdout.split('\n');
      for (const name of names.filter((n) => n.startsWith(`localhost:${registry.port}/`)))
        await ctr('k8s.io', ['images', 'rm', name]);
    }
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(logs, { recursive: true, force: true });
  });

  /** The counter's "<start> <count>" as an ExecSync reads it, or undefined while there is none. */
  const count = async (containerId) => {
    const read = await cri.runtime('ExecSync', { containerId, cmd: ['cat', '/tmp/count'], timeout: 60 });
    const [start, n] = read.stdout.toString().trim().split(' ');
    return read.exitCode === 0 && n !== undefined ? { start, n: Number(n) } : undefined;
  };
  const state = async (containerId) => (await cri.runtime('ContainerStatus', { containerId })).status;
  // The counter logs too: its stdout is CRI's log, through the FIFOs containerd reads. It
  // holds that stdout at descriptor 3 alone, 1 being /dev/null, as a shell in a redirection
  // holds it for the while: the dump must find the FIFO by its file, not at descriptors 0-2
  // (criu-stdio.ts), and the restore give it back there.
  const logged = COUNTER[2].replace('echo "$start $i" >', 'echo "$start $i" >&3; echo "$start $i" >');
  const command = ['sh', '-c', `exec 3>&1 1>/dev/null; ${logged}`];

  /** A pod of the handler running the counter, its logs in a directory of its own, as kubelet gives each pod. */
  const counterPod = async (handler) => {
    const logDirectory = path.join(logs, handler);
    fs.mkdirSync(logDirectory);
    const pod = { name: `ckpt-${handler}`, uid: `ckpt-${handler}-${process.pid}`, logDirectory };
    const started = await startPod(cri, { handler, pod, containers: [{ name: 'counter', command, image }] });
    pods.push(started.podSandboxId);
    return { ...started, id: started.containerIds[0], logDirectory };
  };

  /**
   * CreateContainer with the handler's archive as its image (containerd's CRImportCheckpoint),
   * then StartContainer (the restore), in the pod given; resolves what it showed.
   */
  const restore = async (handler, { podSandboxId, sandboxConfig, logDirectory, attempt }) => {
    const { archive, atCheckpoint } = checkpointed[handler];
    const config = containerConfig({ name: 'counter', attempt, command, image: archive });
    const { containerId } = await cri.runtime('CreateContainer', { podSandboxId, config, sandboxConfig });
    await cri.runtime('StartContainer', { containerId });
    const status = await state(containerId);
    assert.equal(status.state, 'CONTAINER_RUNNING');
    assert.equal(status.annotations.restored, 'true');
    // The rootfs diff brought /tmp/count back.
    const restored = await assertCountsOn(() => count(containerId), atCheckpoint);
    // Its stdout reaches the CRI log, which begins with the checkpointed container's (container.log in the archive).
    const log = path.join(logDirectory, config.logPath);
    const logged = await waitFor('the restored counter in its log', () => {
      const lines = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n') : [];
      const counts = lines
        .map((l) => / stdout F (\S+) (\d+)$/.exec(l))
        .filter((m) => m !== null && m[1] === atCheckpoint.start)
        .map((m) => Number(m[2]));
      return counts.some((n) => n > restored.n) ? counts : undefined;
    });
    assert.equal(logged[0], 1, 'the log carried over from the checkpointed container');
    return { sameShell: true, countsOn: true, logged: true, annotated: status.annotations.restored };
  };

  for (const handler of ['runc', 'skiff']) {
    if (MAJOR < 2) {
      it(`answers CheckpointContainer Unimplemented through the ${handler} handler, the container running on`, async () => {
        const { id } = await counterPod(handler);
        await waitFor('the counter', () => count(id));
        const archive = path.join(dir, `${handler}.tar`);
        await assert.rejects(cri.runtime('CheckpointContainer', { containerId: id, location: archive }), (err) => {
          assert.equal(err.code, grpcStatus.UNIMPLEMENTED, err.message);
          return true;
        });
        shown[handler] = { checkpoint: 'Unimplemented' };
        assert.equal(fs.existsSync(archive), false);
        assert.equal((await state(id)).state, 'CONTAINER_RUNNING');
        await countsOn(() => count(id));
      });
      continue;
    }

    it(`writes kubelet's archive through the ${handler} handler, the container running on`, async () => {
      const { podSandboxId, sandboxConfig, id, logDirectory } = await counterPod(handler);
      const atCheckpoint = await waitFor('the counter at 3', async () => {
        const now = await count(id);
        return now?.n >= 3 ? now : undefined;
      });
      const archive = path.join(dir, `${handler}.tar`);
      await cri.runtime('CheckpointContainer', { containerId: id, location: archive });
      const listed = sh(`tar -tf ${archive}`);
      assert.equal(listed.status, 0, listed.stderr);
      const raw = listed.stdout.split('\n').filter(Boolean);
      const names = raw.map((n) => n.replace(/^\.\//, ''));
      entries[handler] = names;
      for (const file of ['config.dump', 'spec.dump', 'status.dump', 'checkpoint/inventory.img'])
        assert.ok(names.includes(file), `${file} in the archive: ${names.join(' ')}`);
      if (handler === 'skiff') assert.ok(names.includes('checkpoint/skiff-stdio.json'), names.join(' '));
      // The base image the restore will pull: the stand-in's, by digest.
      const config = JSON.parse(sh(`tar -xOf ${archive} ${raw[names.indexOf('config.dump')]}`).stdout);
      assert.match(config.rootfsImageRef, new RegExp(`^localhost:${registry.port}/skiff-busybox@sha256:`));
      assert.equal((await state(id)).state, 'CONTAINER_RUNNING');
      await countsOn(() => count(id));
      await cri.runtime('StopContainer', { containerId: id, timeout: 2 });
      await cri.runtime('RemoveContainer', { containerId: id });
      checkpointed[handler] = { podSandboxId, sandboxConfig, archive, atCheckpoint, logDirectory };
      shown[handler] = { checkpoint: 'archive' };
    });

    it(`restores the ${handler} handler's archive in its pod (CreateContainer with it as the image), the count going on`, async () => {
      const { podSandboxId, sandboxConfig, logDirectory } = checkpointed[handler];
      // As kubelet would ask after a restart of the container: its spec, the next attempt.
      shown[handler].restore = await restore(handler, { podSandboxId, sandboxConfig, logDirectory, attempt: 1 });
    });

    it(`restores the ${handler} handler's archive in a new pod, the count going on`, async () => {
      const logDirectory = path.join(logs, `${handler}-restored`);
      fs.mkdirSync(logDirectory);
      const pod = { name: `restored-${handler}`, uid: `restored-${handler}-${process.pid}`, logDirectory };
      const { podSandboxId, sandboxConfig } = await startPod(cri, { handler, pod, containers: [] });
      pods.push(podSandboxId);
      shown[handler].newPod = await restore(handler, { podSandboxId, sandboxConfig, logDirectory, attempt: 0 });
    });
  }

  it('skiff checkpoints and restores through CRI as the runc handler does', () => {
    assert.deepEqual(shown.skiff, shown.runc);
    if (MAJOR < 2) return;
    // CRI gives the runc handler alone a criu work directory in the archive (dump.log,
    // stats-dump); skiff adds its record of the stdio criu took as external.
    const runcOnly = new Set(['dump.log', 'stats-dump']);
    const skiffOnly = new Set(['checkpoint/skiff-stdio.json']);
    const top = (names, drop) => names.filter((n) => !drop.has(n) && !/^checkpoint\/.+\.img$/.test(n)).sort();
    assert.deepEqual(top(entries.skiff, skiffOnly), top(entries.runc, runcOnly));
  });
});
