import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BUSYBOX_IMAGE,
  containerdTestsEnabled,
  PrivateContainerd,
  startContainerd,
  uniqueNamespace,
} from '../../support/containerd';
import { ok, processRuns, taskList, TaskRow, waitForStatus } from './support';
import { forwardedTopics, groupServers, SKIFF } from './skiff-support';
import { argvOf, keeperPids, openFds, parentOf } from '../../support/procs';
import { outcome, TaskCalls } from '../keeper/keeper-support';
import { RpcCode } from '../../../src/adapters/shim/wire/rpc-code';
import { waitFor } from '../../support/wait-for';

/**
 * What dies with a pod keeper (docs/failure-domains.md, "What dies with what"): its pod's
 * containers, which containerd's `delete` removes once the keeper's connections close, and
 * nothing else. The serving process goes on serving the other pods, forgets the dead pod's
 * tasks (`delete`'s forget connection, docs/keeper-protocol.md, "`delete`") and holds nothing of
 * them; a new task of the dead pod gets a new keeper.
 */
const SANDBOX = 'io.kubernetes.cri.sandbox-id';
/** Descriptors the serving process may open or close of its own meanwhile (Node's, libuv's). */
const FD_SLACK = 1;

/** containerd's log lines about the `delete` action and dead shims, for a failure's message. */
const deleteLines = (log: string) =>
  log
    .split('\n')
    .filter((line) => /cleanup warnings|failed to delete|cleaning up|shim disconnected/.test(line))
    .slice(-8)
    .join(' | ');

const pidOf = (row: TaskRow | undefined) => (row as TaskRow).pid;

if (containerdTestsEnabled())
  describe('containerd 1.6 with skiff behind pod keepers: a SIGKILL of one pod keeper', () => {
    let env: PrivateContainerd;
    let ns: string;

    beforeAll(async () => {
      env = await startContainerd({ logLevel: 'debug' });
      ns = uniqueNamespace('keeper-death');
      await env.importImages(ns);
    });
    afterAll(async () => {
      await env?.stop();
    });

    /** `ctr run -d` of a container of `pod` (its CRI sandbox id: the keeper's pod, not the serving group). */
    const run = (id: string, pod: string) =>
      ok(env, ns, ['run', '-d', ...SKIFF, '--annotation', `${SANDBOX}=${pod}`, BUSYBOX_IMAGE, id, 'sleep', '1000']);

    it("loses that pod's containers only; the same serving process serves on and holds nothing of them", async () => {
      await run('b1', 'pod-b');
      const [server] = groupServers(env);
      expect(groupServers(env)).toHaveLength(1);
      // Settled: the serving process's descriptors with pod B alone, its connection for events made.
      await waitFor("b1's start event", () => forwardedTopics(env, ns).includes('/tasks/start'));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const fdsBefore = openFds(server.pid);

      await run('a1', 'pod-a');
      await run('a2', 'pod-a');
      const before = await taskList(env, ns);
      for (const id of ['a1', 'a2', 'b1']) expect(before.get(id)?.status).toBe('RUNNING');
      const keeperA = parentOf(pidOf(before.get('a1')));
      const keeperB = parentOf(pidOf(before.get('b1')));
      expect(argvOf(keeperA).at(-1)).toBe('keep');
      expect(parentOf(pidOf(before.get('a2')))).toBe(keeperA);
      expect(keeperB).not.toBe(keeperA);
      expect(groupServers(env).map((s) => s.pid)).toEqual([server.pid]);
      const fdsWithA = openFds(server.pid);
      expect(fdsWithA).toBeGreaterThan(fdsBefore + FD_SLACK);
      const exits = () => forwardedTopics(env, ns).filter((t) => t === '/tasks/exit').length;
      const exitsBefore = exits();
      // The keepers' sockets, <state>/skiff/k-<hash>.sock: one per pod.
      const keeperSockets = () =>
        readdirSync(join(env.paths.state, 'skiff'))
          .filter((name) => /^k-[0-9a-f]{16}\.sock$/.test(name))
          .sort();
      const socketsBefore = keeperSockets();
      expect(socketsBefore).toHaveLength(2);

      process.kill(keeperA, 'SIGKILL');
      // containerd sees the keeper's connections close and runs `delete` for each of its tasks.
      await waitFor('pod A gone from ctr task ls', async () => {
        const now = await taskList(env, ns);
        return !now.has('a1') && !now.has('a2');
      });
      // ...which kills them and takes their rootfs off (ctr stops listing them as it starts).
      const mounted = (id: string) =>
        readFileSync('/proc/self/mountinfo', 'utf8').includes(
          ` ${join(env.paths.state, 'io.containerd.runtime.v2.task', ns, id, 'rootfs')} `,
        );
      for (const id of ['a1', 'a2'])
        await waitFor(`${id} killed and unmounted`, () => !processRuns(pidOf(before.get(id))) && !mounted(id));
      // `delete` removes the dead keeper's socket, as the runc shim's is removed; pod B's stays.
      // Should it stay, the message says which keepers live and what containerd said of `delete`.
      await waitFor(
        () =>
          `pod A's keeper socket removed (left: ${keeperSockets().join(' ')}; keepers alive: ${keeperPids(env.address)
            .map((pid) => `${pid}${pid === keeperA ? ' (A)' : pid === keeperB ? ' (B)' : ''}`)
            .join(' ')}; containerd on delete: ${deleteLines(readFileSync(env.paths.log, 'utf8'))})`,
        () => keeperSockets().length === 1,
      );
      expect(socketsBefore).toContain(keeperSockets()[0]);
      const after = await taskList(env, ns);
      expect(after.get('b1')).toEqual(before.get('b1'));
      expect(parentOf(pidOf(after.get('b1')))).toBe(keeperB);
      expect(groupServers(env).map((s) => s.pid)).toEqual([server.pid]);
      console.log('skiff: 1 pod lost to the SIGKILL of its keeper (runc shim: 1 pod per shim)');

      // The serving process forgot pod A's tasks: it answers NOT_FOUND for them and holds none of their descriptors.
      const calls = new TaskCalls(server.socket);
      try {
        for (const id of ['a1', 'a2'])
          expect(await outcome(calls.state(id))).toEqual({
            code: RpcCode.NOT_FOUND,
            message: `task "${id}" not found`,
          });
        expect((await outcome(calls.state('b1'))).code).toBe(0);
      } finally {
        calls.close();
      }
      const fdsAfter = await waitFor(
        () => `the serving process's descriptors back to ${fdsBefore} (it has ${openFds(server.pid)})`,
        () => {
          const fds = openFds(server.pid);
          return fds <= fdsBefore + FD_SLACK && fds;
        },
      );
      console.log(
        `skiff: the serving process's descriptors: ${fdsBefore} with pod B, ${fdsWithA} with pod A too, ${fdsAfter} after pod A's keeper died`,
      );
      expect(readFileSync(env.paths.log, 'utf8')).toMatch(/task a1 forgotten: its pod keeper died/);
      // containerd publishes their exits itself (its `delete`'s 137); the serving process publishes none.
      expect(exits()).toBe(exitsBefore);

      // Pod B works on: exec and kill.
      expect(
        await env.ctr(ns, ['tasks', 'exec', '--exec-id', 'x', 'b1', 'sh', '-c', 'echo still; exit 3']),
      ).toMatchObject({ status: 3, stdout: 'still\n' });
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', 'b1']);
      await waitForStatus(env, ns, 'b1', 'STOPPED');
      expect((await ok(env, ns, ['tasks', 'rm', 'b1'])).stderr).toContain('exit code 137');

      // A new task of the dead pod gets a new keeper, from the same serving process.
      await ok(env, ns, ['tasks', 'start', '-d', 'a1']);
      const again = await waitForStatus(env, ns, 'a1', 'RUNNING');
      const newKeeper = parentOf(again.pid);
      expect(argvOf(newKeeper).at(-1)).toBe('keep');
      expect(newKeeper).not.toBe(keeperA);
      expect(groupServers(env).map((s) => s.pid)).toEqual([server.pid]);
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', 'a1']);
      await waitForStatus(env, ns, 'a1', 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', 'a1']);
      // b1's exec and b1, then the new a1: each once.
      expect(exits()).toBe(exitsBefore + 3);
      await ok(env, ns, ['containers', 'rm', 'a1', 'a2', 'b1']);
    });

    it("beside it, containerd's runc shim: the SIGKILL of one pod's shim loses that pod (1 of 2)", async () => {
      const runc = (id: string, pod: string) =>
        ok(env, ns, [
          'run',
          '-d',
          '--runtime',
          'io.containerd.runc.v2',
          '--annotation',
          `${SANDBOX}=${pod}`,
          BUSYBOX_IMAGE,
          id,
          'sleep',
          '1000',
        ]);
      const pods: Record<string, string[]> = { 'runc-a': ['ra1', 'ra2'], 'runc-b': ['rb1'] };
      for (const [pod, ids] of Object.entries(pods)) for (const id of ids) await runc(id, pod);
      const before = await taskList(env, ns);
      // The runc shim groups a pod's containers under one shim by the sandbox id, as skiff's keeper does.
      const shim = parentOf(pidOf(before.get('ra1')));
      expect(readFileSync(`/proc/${shim}/cmdline`, 'utf8')).toContain('containerd-shim-runc-v2');
      expect(parentOf(pidOf(before.get('ra2')))).toBe(shim);
      process.kill(shim, 'SIGKILL');
      await waitFor('pod runc-a gone from ctr', async () => {
        const now = await taskList(env, ns);
        return !now.has('ra1') && !now.has('ra2');
      });
      const after = await taskList(env, ns);
      const lost = Object.values(pods).filter((ids) => ids.some((id) => after.get(id)?.status !== 'RUNNING')).length;
      console.log(`containerd's runc shim: ${lost} of 2 pods lost to the SIGKILL of one pod's shim`);
      expect(lost).toBe(1);
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', 'rb1']);
      await waitForStatus(env, ns, 'rb1', 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', 'rb1']);
      await ok(env, ns, ['containers', 'rm', 'ra1', 'ra2', 'rb1']);
    });
  });
