import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { containerd as bootstrap } from '../../../src/adapters/shim/wire/proto/generated/containerd/bootstrap';
import { task } from '../../../src/adapters/shim/wire/proto/generated/task/v2/shim';
import {
  BUSYBOX_IMAGE,
  LTS_VERSION,
  ltsContainerdTestsEnabled,
  PrivateContainerd,
  startContainerd,
  uniqueNamespace,
} from '../../support/containerd';
import { TaskTestClient } from '../support/task-client';
import { waitFor } from '../../support/wait-for';
import { groupServers } from './skiff-support';
import { OOM_COMMAND, OOM_LIMIT, ok, waitForStatus } from './support';

const { criClient, criReady } = require('../../../scripts/containerd/cri-client.js') as {
  criClient(address: string): {
    runtime(method: string, request?: object): Promise<Record<string, unknown>>;
    close(): void;
  };
  criReady(cri: unknown): Promise<void>;
};

/**
 * containerd 2.3's side of the shim protocol (docs/containerd.md, "containerd 2.2 and 2.3"), under a
 * private containerd 2.3.4 with its own runc shim beside skiff: start's bootstrap, `-info` before
 * Create and what CRI makes of it, Shutdown after every deletion. The shim binary containerd runs
 * is a recorder in front of the real one: what start read and wrote, and each call of the binary.
 */
const REAL_SHIM = resolve(__dirname, '../../../bin/containerd-shim-skiff-v2');
const SKIFF = 'io.containerd.skiff.v2';
const RUNC = 'io.containerd.runc.v2';

/** A shim dir whose containerd-shim-skiff-v2 records its calls (and start's stdin and stdout) in `dir`. */
function recordingShim(dir: string): string {
  writeFileSync(
    join(dir, 'containerd-shim-skiff-v2'),
    `#!/bin/sh
d=${dir}
case " $* " in
  *" start "*)
    n=$$; cat > "$d/start-$n.in"; "${REAL_SHIM}" "$@" < "$d/start-$n.in" > "$d/start-$n.out"; rc=$?
    cat "$d/start-$n.out"; echo "start $rc" >> "$d/calls"; exit $rc ;;
  *" -info "*) echo "-info" >> "$d/calls"; exec "${REAL_SHIM}" "$@" ;;
  *) echo "\${*##* }" >> "$d/calls"; exec "${REAL_SHIM}" "$@" ;;
esac
`,
    { mode: 0o755 },
  );
  return dir;
}

const calls = (dir: string): string[] =>
  readFileSync(join(dir, 'calls'), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
const startFiles = (dir: string, ext: string): Buffer[] =>
  readdirSync(dir)
    .filter((f) => f.startsWith('start-') && f.endsWith(ext))
    .sort()
    .map((f) => readFileSync(join(dir, f)));

function bundleFile(env: PrivateContainerd, ns: string, id: string, file: string): string {
  return readFileSync(join(env.paths.bundles, ns, id, file), 'utf8');
}

const openFds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

if (ltsContainerdTestsEnabled())
  describe(`the shim protocol of containerd ${LTS_VERSION}`, () => {
    let env: PrivateContainerd;
    const shimDir = mkdtempSync(join(tmpdir(), 'skiff-lts-shim-'));
    const ns = uniqueNamespace('lts');
    beforeAll(async () => {
      env = await startContainerd({ lts: true, cri: true, shimDirs: [recordingShim(shimDir)], logLevel: 'debug' });
      await env.importImages(ns);
    }, 60_000);
    afterAll(async () => {
      await env?.stop();
      rmSync(shimDir, { recursive: true, force: true });
    });

    it('start reads its BootstrapParams and answers a BootstrapResult, as the runc shim does', async () => {
      await ok(env, ns, ['run', '-d', '--runtime', SKIFF, BUSYBOX_IMAGE, 'b1', 'sleep', '100']);
      await ok(env, ns, ['run', '-d', '--runtime', RUNC, BUSYBOX_IMAGE, 'r1', 'sleep', '100']);
      const params = bootstrap.runtime.bootstrap.v1.BootstrapParams.deserialize(startFiles(shimDir, '.in')[0]);
      expect(params.toObject()).toMatchObject({ instance_id: 'b1', namespace: ns, containerd_version: LTS_VERSION });
      const result = bootstrap.runtime.bootstrap.v1.BootstrapResult.deserialize(startFiles(shimDir, '.out')[0]);
      const address = bundleFile(env, ns, 'b1', 'address');
      expect(result.toObject()).toMatchObject({ version: 2, address, protocol: 'ttrpc' });
      // containerd took it: it stored it, as for the runc shim (whose sandbox API makes it version 3).
      expect(JSON.parse(bundleFile(env, ns, 'b1', 'bootstrap.json'))).toEqual({
        version: 2,
        address,
        protocol: 'ttrpc',
      });
      expect(JSON.parse(bundleFile(env, ns, 'r1', 'bootstrap.json'))).toMatchObject({ version: 3, protocol: 'ttrpc' });
      await ok(env, ns, ['task', 'exec', '--exec-id', 'e1', 'b1', 'true']);
      // -info: once when the CRI plugin loaded (its handlers' features), once before the first Create
      // (the mount types skiff mounts, then cached: core/runtime/v2/shim_manager.go loadShimInfo).
      expect(calls(shimDir).slice(0, 3)).toEqual(['-info', '-info', 'start 0']);
      const loaded = readFileSync(env.paths.log, 'utf8')
        .split('\n')
        .filter((l) => l.includes('loaded shim info') && l.includes(SKIFF));
      expect(loaded).toHaveLength(1);
      expect(loaded[0]).toMatch(/runtime-allow-mounts"?="?bind,overlay/);
    });

    it("CRI reports the skiff handler's features (from -info) as the runc handler's", async () => {
      const cri = criClient(env.address);
      try {
        await criReady(cri);
        const status = (await cri.runtime('Status', { verbose: false })) as {
          runtimeHandlers: Array<{ name: string; features: Record<string, boolean> | null }>;
        };
        const features = (name: string) => status.runtimeHandlers.find((h) => h.name === name)?.features;
        expect(features('runc')).toEqual(expect.objectContaining({ recursiveReadOnlyMounts: expect.any(Boolean) }));
        expect(features('skiff')).toEqual(features('runc'));
        process.stdout.write(`# CRI Status on ${LTS_VERSION}: runc ${JSON.stringify(features('runc'))}\n`);
      } finally {
        cri.close();
      }
    });

    it("-info costs a fork of the binary and of runc's features: measured beside the runc shim's", () => {
      const time = (binary: string) => {
        const ms: number[] = [];
        for (let i = 0; i < 15; i++) {
          const t = process.hrtime.bigint();
          const r = spawnSync(binary, ['-info'], { input: Buffer.alloc(0) });
          ms.push(Number(process.hrtime.bigint() - t) / 1e6);
          expect(r.status).toBe(0);
        }
        return ms.sort((a, b) => a - b)[7];
      };
      const runcShim = join(readlinkSync(`/proc/${env.pid}/exe`), '..', 'containerd-shim-runc-v2');
      const skiff = time(REAL_SHIM);
      const runc = time(runcShim);
      process.stdout.write(`# -info, median of 15: skiff ${skiff.toFixed(1)} ms, runc shim ${runc.toFixed(1)} ms\n`);
      expect(skiff).toBeGreaterThan(0);
    });

    it("Shutdown after each deletion leaves the serving process and the namespace's other tasks alone; the last leaves nothing", async () => {
      await ok(env, ns, ['run', '-d', '--runtime', SKIFF, BUSYBOX_IMAGE, 'b2', 'sleep', '100']);
      expect(calls(shimDir).filter((c) => c === '-info')).toHaveLength(2);
      const [server] = groupServers(env).filter((s) => s.socket.includes('/skiff/'));
      const b2Socket = bundleFile(env, ns, 'b2', 'address').replace(/^unix:\/\//, '');
      const fdsBefore = openFds(server.pid);
      const shutdownsBefore = calls(shimDir).filter((c) => c === 'delete').length;

      await ok(env, ns, ['task', 'kill', '-s', 'KILL', 'b1']);
      await waitForStatus(env, ns, 'b1', 'STOPPED');
      await ok(env, ns, ['task', 'rm', 'b1']);
      // Shutdown came (containerd's log of the serving process's calls), then the binary's delete.
      await waitFor('delete of b1', () => calls(shimDir).filter((c) => c === 'delete').length > shutdownsBefore);
      expect(readFileSync(env.paths.log, 'utf8')).toMatch(/skiff\[\d+\]: Shutdown/);
      // Again, by hand, on the other task's connection: for a task gone and for one that runs, twice.
      const client = new TaskTestClient(b2Socket, 'ttrpc');
      for (const id of ['b1', 'b2', 'b2'])
        await client.call('Shutdown', new task.v2.ShutdownRequest({ id, now: false }));
      client.close();
      await ok(env, ns, ['task', 'exec', '--exec-id', 'e2', 'b2', 'true']);
      expect(groupServers(env).map((s) => s.pid)).toContain(server.pid);

      await ok(env, ns, ['task', 'kill', '-s', 'KILL', 'b2']);
      await waitForStatus(env, ns, 'b2', 'STOPPED');
      await ok(env, ns, ['task', 'rm', 'b2']);
      await ok(env, ns, ['containers', 'rm', 'b1', 'b2']);
      // Nothing of either task: no keeper, no task files; the serving process stays for the next one, with no more fds.
      await waitFor('the pod keepers to go', () =>
        readdirSync(join(env.paths.state, 'skiff')).every((f) => !f.startsWith('k-') || !f.endsWith('.sock')),
      );
      expect(readdirSync(join(env.paths.state, 'skiff', ns, 'tasks'))).toEqual([]);
      await waitFor('the serving process to close what it held', () => openFds(server.pid) <= fdsBefore - 1);
      await ok(env, ns, ['task', 'kill', '-s', 'KILL', 'r1']);
    });
    it('an OOM kill: /tasks/oom comes before /tasks/exit, and Stats answers after the exit until Delete, as through the runc shim', async () => {
      // containerd 2.3 asks Stats after an exit 137 (CRI's OOM check) and reads the events in order.
      const ctrBinary = join(readlinkSync(`/proc/${env.pid}/exe`), '..', 'ctr');
      const events = spawn(ctrBinary, ['--address', env.address, 'events'], { stdio: ['ignore', 'pipe', 'ignore'] });
      let seen = '';
      events.stdout.on('data', (chunk: Buffer) => (seen += chunk.toString('utf8')));
      /** The topics of task `id`'s events, in the order ctr events printed them. */
      const topicsOf = (id: string) =>
        seen
          .split('\n')
          .map((line) => / (\/tasks\/\S+) (\{.*\})$/.exec(line))
          .filter(
            (m): m is RegExpExecArray =>
              m !== null && (JSON.parse(m[2]) as { container_id?: string }).container_id === id,
          )
          .map((m) => m[1]);
      try {
        await waitFor('ctr events to subscribe', async () => {
          await ok(env, ns, ['containers', 'ls']);
          return events.pid !== undefined;
        });
        const stats: Record<string, number | null> = {};
        for (const [runtime, id] of [
          [SKIFF, 'oom-skiff'],
          [RUNC, 'oom-runc'],
        ]) {
          await ok(env, ns, ['run', '-d', '--runtime', runtime, ...OOM_LIMIT, BUSYBOX_IMAGE, id, ...OOM_COMMAND]);
          await waitForStatus(env, ns, id, 'STOPPED');
          stats[id] = (await env.ctr(ns, ['tasks', 'metrics', id])).status;
          await waitFor(`the exit of ${id}`, () => topicsOf(id).includes('/tasks/exit'));
          await ok(env, ns, ['tasks', 'rm', id]);
          await ok(env, ns, ['containers', 'rm', id]);
        }
        expect(stats).toEqual({ 'oom-skiff': 0, 'oom-runc': 0 });
        for (const id of ['oom-skiff', 'oom-runc']) {
          const topics = topicsOf(id);
          expect(topics).toContain('/tasks/oom');
          expect(topics.indexOf('/tasks/oom')).toBeLessThan(topics.indexOf('/tasks/exit'));
        }
      } finally {
        events.kill();
      }
    });
  });
