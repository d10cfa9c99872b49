import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BUSYBOX_IMAGE,
  containerdTestsEnabled,
  PrivateContainerd,
  startContainerd,
  uniqueNamespace,
} from '../../support/containerd';
import { ok, processRuns, taskList, waitForStatus } from './support';
import { forwardedTopics, groupServers, runCounter, SKIFF, TRAPPED } from './skiff-support';
import { waitFor } from '../../support/wait-for';
import { argvOf, parentOf } from '../../support/procs';
import { task } from '../../../src/adapters/shim/wire/proto/generated/task/v2/shim';
import { TtrpcClient } from '../../../src/adapters/shim/wire/ttrpc/ttrpc-client';
import { TTRPC_TASK_SERVICE } from '../../../src/adapters/shim/wire/ttrpc/service-names';

/**
 * Containers outlive skiff's serving process (docs/keeper-protocol.md, docs/failure-domains.md): behind pod
 * keepers (the default) a SIGKILL of the serving process leaves
 * every container running and known to containerd, with the exits and output that follow.
 */

if (containerdTestsEnabled())
  describe('containerd 1.6 with skiff behind pod keepers: a SIGKILL of the serving process', () => {
    let env: PrivateContainerd;
    let ns: string;
    let logDir: string;

    beforeAll(async () => {
      env = await startContainerd({ logLevel: 'debug' });
      ns = uniqueNamespace('crash');
      await env.importImages(ns);
      logDir = mkdtempSync(join(tmpdir(), 'skiff-crash-'));
    });
    afterAll(async () => {
      await env?.stop();
      rmSync(logDir, { recursive: true, force: true });
    });

    it('loses no container, no exit and no byte of output, and the next call is served at once', async () => {
      const [counter, lasting, ending] = ['counter', 'lasting', 'ending'];
      const log = join(logDir, 'counter.log');
      await runCounter(env, ns, counter, log);
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, lasting, 'sleep', '1000']);
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, ending, 'sh', '-c', TRAPPED]);
      const before = await taskList(env, ns);
      for (const id of [counter, lasting, ending]) expect(before.get(id)?.status).toBe('RUNNING');
      // Each init is its pod keeper's child, not the serving process's: its exit status is the keeper's to read.
      for (const id of [counter, lasting, ending])
        expect(argvOf(parentOf((before.get(id) as { pid: number }).pid)).at(-1)).toBe('keep');
      const exits = () => forwardedTopics(env, ns).filter((t) => t === '/tasks/exit').length;
      const exitsBefore = exits();
      const servers = groupServers(env);
      expect(servers).toHaveLength(1);

      const killedAt = process.hrtime.bigint();
      process.kill(servers[0].pid, 'SIGKILL');
      // An exit during the outage: its keeper is its parent and keeps its status.
      process.kill((before.get(ending) as { pid: number }).pid, 'SIGTERM');
      const after = await taskList(env, ns);
      const servedMs = Number(process.hrtime.bigint() - killedAt) / 1e6;
      console.log(
        `skiff behind pod keepers: the first call after the SIGKILL (ctr task ls) served ${servedMs.toFixed(0)} ms after the kill`,
      );
      // Served by the restarted process, not after a timeout; the 200 ms target is the benchmark's
      // (bench/crash.bench.js), since a test shares the machine with other suites.
      expect(servedMs).toBeLessThan(2000);
      expect(after.get(counter)).toEqual(before.get(counter));
      expect(after.get(lasting)).toEqual(before.get(lasting));
      expect(argvOf(parentOf((after.get(lasting) as { pid: number }).pid)).at(-1)).toBe('keep');
      console.log('skiff behind pod keepers: 0 of 3 containers lost to the SIGKILL of the process serving them');
      expect(groupServers(env).map((s) => s.pid)).not.toContain(servers[0].pid);

      // The exit is reported once, with its real status.
      await waitForStatus(env, ns, ending, 'STOPPED');
      await waitFor('the /tasks/exit of the ending container', () => exits() > exitsBefore);
      expect((await ok(env, ns, ['tasks', 'rm', ending])).stderr).toContain('exit code 7');
      expect(exits()).toBe(exitsBefore + 1);

      // Exec and kill work on what the old serving process made.
      expect(
        await env.ctr(ns, ['tasks', 'exec', '--exec-id', 'after', lasting, 'sh', '-c', 'echo again; exit 4']),
      ).toMatchObject({
        status: 4,
        stdout: 'again\n',
      });
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', lasting]);
      await waitForStatus(env, ns, lasting, 'STOPPED');
      expect((await ok(env, ns, ['tasks', 'rm', lasting])).stderr).toContain('exit code 137');

      // Output kept flowing: the counter goes on past the crash, with no gap.
      const counted = () => readFileSync(log, 'utf8').trim().split('\n').map(Number);
      const atCheck = counted().length;
      await waitFor('the counter to go on', () => counted().length > atCheck + 10);
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', counter]);
      await waitForStatus(env, ns, counter, 'STOPPED');
      const pid = (after.get(counter) as { pid: number }).pid;
      await ok(env, ns, ['tasks', 'rm', counter]);
      expect(processRuns(pid)).toBe(false);
      const lines = counted();
      expect(lines).toEqual(lines.map((_, i) => i));
      await ok(env, ns, ['containers', 'rm', counter, lasting, ending]);
      // ending, the exec, lasting, counter: each once.
      expect(exits()).toBe(exitsBefore + 4);
    });

    it('serves a call made the moment the killed serving process is gone, never UNAVAILABLE: its listener outlives its leader thread', async () => {
      const id = 'prompt';
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, id, 'sleep', '1000']);
      const address = readFileSync(join(env.paths.state, 'io.containerd.runtime.v2.task', ns, id, 'address'), 'utf8');
      // CloseIO changes something (it is never sent again blindly) and is harmless without stdin.
      const closeIo = Buffer.from(new task.v2.CloseIORequest({ id, stdin: false }).serialize());
      for (let round = 0; round < 10; round++) {
        const [server] = groupServers(env);
        process.kill(server.pid, 'SIGKILL');
        // Gone as procfs tells it: the leader thread a zombie, while the process's last threads,
        // and its listener with them, may live a few ms longer and take a connection.
        await waitFor('the killed serving process to be gone', () => !processRuns(server.pid), 5000);
        const client = new TtrpcClient(address.trim().replace('unix://', ''));
        try {
          await client.call(TTRPC_TASK_SERVICE, 'CloseIO', closeIo);
        } finally {
          client.close();
        }
        await waitFor('a new serving process', () => groupServers(env).length === 1);
      }
      expect((await taskList(env, ns)).get(id)?.status).toBe('RUNNING');
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', id]);
      await waitForStatus(env, ns, id, 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', id]);
      await ok(env, ns, ['containers', 'rm', id]);
    });

    it("beside it, containerd's runc shim: the SIGKILL of a container's shim loses that container (1 of 3)", async () => {
      const ids = ['r0', 'r1', 'r2'];
      for (const id of ids)
        await ok(env, ns, ['run', '-d', '--runtime', 'io.containerd.runc.v2', BUSYBOX_IMAGE, id, 'sleep', '1000']);
      const before = await taskList(env, ns);
      const shim = parentOf((before.get('r0') as { pid: number }).pid);
      expect(readFileSync(`/proc/${shim}/cmdline`, 'utf8')).toContain('containerd-shim-runc-v2');
      process.kill(shim, 'SIGKILL');
      // containerd sees its connection close and cleans the task up.
      await waitFor('r0 gone from ctr', async () => (await taskList(env, ns)).get('r0')?.status !== 'RUNNING');
      const after = await taskList(env, ns);
      const lost = ids.filter((id) => after.get(id)?.status !== 'RUNNING').length;
      console.log(
        `containerd's runc shim: ${lost} of ${ids.length} containers lost to the SIGKILL of the process serving one`,
      );
      expect(lost).toBe(1);
      for (const id of ids) {
        if (after.get(id)?.status === 'RUNNING') await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', id]);
        await waitFor(`${id} stopped`, async () => (await taskList(env, ns)).get(id)?.status !== 'RUNNING');
        if ((await taskList(env, ns)).has(id)) await ok(env, ns, ['tasks', 'rm', id]);
      }
      await ok(env, ns, ['containers', 'rm', ...ids]);
    });
  });
