'use strict';
// ctr against the node's containerd, through containerd's runc shim and through skiff: the
// same commands, the same outputs, exit statuses, states, metrics and OOM reports.
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { after, before, describe, it } = require('node:test');
const {
  IMAGE,
  OOM_TRIES,
  RUNTIMES,
  SLOW_MS,
  cleanNamespace,
  ctr,
  ctrOk,
  importImage,
  namespaceFor,
  waitFor,
} = require('./support');

/** What each runtime's `ctr task metrics` printed, by runtime: compared at the end. */
const metricNames = {};

/** The METRIC column of `ctr task metrics` (its table: ID/TIMESTAMP, then METRIC/VALUE rows). */
function metricRows(text) {
  const lines = text.split('\n').map((line) => line.trim().split(/\s+/)[0]);
  const start = lines.indexOf('METRIC');
  assert.ok(start >= 0, `no METRIC table in:\n${text}`);
  return lines.slice(start + 1).filter(Boolean);
}

/** `ctr events` of a namespace, collected until stop(). */
function watchEvents(namespace) {
  const child = spawn('ctr', ['--namespace', namespace, 'events'], { stdio: ['ignore', 'pipe', 'ignore'] });
  let text = '';
  child.stdout.on('data', (chunk) => (text += chunk));
  return { text: () => text, stop: () => child.kill() };
}

for (const [name, runtime] of Object.entries(RUNTIMES)) {
  describe(`ctr through ${name} (${runtime})`, { timeout: 15 * SLOW_MS }, () => {
    const ns = namespaceFor('ctr', name);
    const run = (args, options) => ctr(ns, ['run', '--runtime', runtime, ...args], options);

    before(() => importImage(ns));
    after(() => cleanNamespace(ns));

    it('runs a container to its end, its output and exit status passed on', async () => {
      const hello = await run(['--rm', IMAGE, 'hello', 'echo', 'hello from the guest']);
      assert.deepEqual([hello.status, hello.stdout, hello.stderr], [0, 'hello from the guest\n', '']);
      const three = await run(['--rm', IMAGE, 'three', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
      assert.deepEqual([three.status, three.stdout, three.stderr], [3, 'out\n', 'err\n']);
    });

    it('execs, pauses, resumes, lists and kills a detached container', async () => {
      await ctrOk(ns, ['run', '-d', '--runtime', runtime, IMAGE, 'box', 'sleep', '100000']);
      const exec = await ctr(ns, ['task', 'exec', '--exec-id', 'e1', 'box', 'sh', '-c', 'echo in; exit 5']);
      assert.deepEqual([exec.status, exec.stdout], [5, 'in\n']);
      const status = async () =>
        (await ctrOk(ns, ['task', 'ls']))
          .split('\n')
          .find((l) => l.startsWith('box'))
          ?.split(/\s+/)[2];
      assert.equal(await status(), 'RUNNING');
      await ctrOk(ns, ['task', 'pause', 'box']);
      assert.equal(await status(), 'PAUSED');
      await ctrOk(ns, ['task', 'resume', 'box']);
      assert.equal(await status(), 'RUNNING');
      const ps = await ctrOk(ns, ['task', 'ps', 'box']);
      assert.match(ps, /^PID\s+INFO/);
      // sleep is the container's pid 1, which SIGTERM would not end.
      await ctrOk(ns, ['task', 'kill', '-s', 'KILL', 'box']);
      await waitFor('box to stop', async () => (await status()) === 'STOPPED');
      await ctrOk(ns, ['task', 'delete', 'box']);
      await ctrOk(ns, ['container', 'delete', 'box']);
    });

    it('puts the container in a cgroup v2 of its own and reports its metrics', async () => {
      await ctrOk(ns, ['run', '-d', '--runtime', runtime, IMAGE, 'busy', 'sh', '-c', 'while :; do :; done']);
      const pid = (await ctrOk(ns, ['task', 'ls']))
        .split('\n')
        .find((l) => l.startsWith('busy'))
        ?.split(/\s+/)[1];
      const hostView = fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8');
      assert.match(hostView, new RegExp(`^0::/${ns}/busy\\n$`));
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const metrics = await ctrOk(ns, ['task', 'metrics', 'busy']);
      metricNames[name] = metricRows(metrics);
      assert.ok(metricNames[name].includes('pids.current'), `v2 metrics expected:\n${metrics}`);
      const usage = metrics.split('\n').find((l) => l.trim().startsWith('cpu.usage_usec'));
      assert.ok(Number(usage?.trim().split(/\s+/)[1]) > 0, `a busy container's CPU time:\n${metrics}`);
      await ctrOk(ns, ['task', 'kill', '-s', 'KILL', 'busy']);
      await waitFor('busy to stop', async () => (await ctr(ns, ['task', 'delete', 'busy'])).status === 0);
      await ctrOk(ns, ['container', 'delete', 'busy']);
    });

    it('reports an OOM kill as /tasks/oom, then exit 137', async () => {
      const events = watchEvents(ns);
      try {
        // `ctr events` takes seconds to subscribe under emulation: an event of its own says it has.
        await waitFor(
          'ctr events to subscribe',
          async () => {
            await run(['--rm', IMAGE, `probe-${Date.now()}`, 'true']);
            return events.text().includes('probe-') || undefined;
          },
          SLOW_MS,
        );
        const tries = OOM_TRIES[name] ?? 1;
        for (let attempt = 1; ; attempt += 1) {
          const id = `oom${attempt}`;
          const oom = await run([
            '--rm',
            '--memory-limit',
            String(32 * 1024 * 1024),
            IMAGE,
            id,
            'sh',
            '-c',
            'x=0123456789abcdef; while :; do x=$x$x; done',
          ]);
          assert.equal(oom.status, 137);
          const told = new RegExp(`/tasks/oom .*"?container_id"?:"?${id}\\b`);
          try {
            await waitFor('the /tasks/oom event', () => told.test(events.text()) || undefined, 20_000);
            break;
          } catch (err) {
            if (attempt === tries) throw err;
            console.log(`# ${name}: no /tasks/oom for ${id} (try ${attempt}), its exit 137`);
          }
        }
      } finally {
        events.stop();
      }
    });
  });
}

describe('side by side', () => {
  it('skiff reports the metrics the runc shim reports (cgroup v2 names on a v2 host)', () => {
    assert.ok(metricNames.runc?.length > 0 && metricNames.skiff?.length > 0, 'both runtimes reported metrics');
    assert.deepEqual(metricNames.skiff, metricNames.runc);
  });
});

// Another OCI runtime than runc, as clusters run crun: containerd's runc shim told so by
// `--runc-binary`, skiff by runtime options in TOML (`--runtime-config-path`, docs/containerd.md).
describe('crun instead of runc, per runtime options', { timeout: 10 * SLOW_MS }, () => {
  const ns = namespaceFor('crun', 'both');
  const dir = fs.mkdtempSync('/var/lib/vm-crun-'); // where a program may run: /run is noexec
  const wrapper = path.join(dir, 'crun-logged');
  const calls = path.join(dir, 'calls.log');
  fs.writeFileSync(wrapper, `#!/bin/sh\necho "$*" >> ${calls}\nexec crun "$@"\n`, { mode: 0o755 });
  const options = path.join(dir, 'crun.toml');
  fs.writeFileSync(options, `BinaryName = "${wrapper}"\n`);

  before(() => importImage(ns));
  after(() => cleanNamespace(ns));

  for (const [name, flags] of [
    ['runc', ['--runtime', RUNTIMES.runc, '--runc-binary', wrapper]],
    ['skiff', ['--runtime', RUNTIMES.skiff, '--runtime-config-path', options]],
  ])
    it(`runs a container with crun through ${name}`, async () => {
      fs.rmSync(calls, { force: true });
      const ran = await ctr(ns, ['run', '--rm', ...flags, IMAGE, `crun-${name}`, 'echo', 'from crun']);
      assert.deepEqual([ran.status, ran.stdout], [0, 'from crun\n'], ran.stderr);
      assert.match(fs.readFileSync(calls, 'utf8'), new RegExp(`\\bcreate\\b.*\\bcrun-${name}\\b`));
    });

  it('refuses a file with a key skiff does not know, naming it, for that task only', async () => {
    const bad = path.join(dir, 'bad.toml');
    fs.writeFileSync(bad, `BinaryName = "${wrapper}"\nBinary = "x"\n`);
    const args = ['--runtime', RUNTIMES.skiff, '--runtime-config-path'];
    const refused = await ctr(ns, ['run', '--rm', ...args, bad, IMAGE, 'bad', 'true']);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, new RegExp(`${bad}.*unknown key "Binary"`));
    const next = await ctr(ns, ['run', '--rm', ...args, options, IMAGE, 'next', 'echo', 'next']);
    assert.deepEqual([next.status, next.stdout], [0, 'next\n'], next.stderr);
  });
});
