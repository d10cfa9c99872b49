import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BUSYBOX_IMAGE,
  containerdTestsEnabled,
  PrivateContainerd,
  startContainerd,
  uniqueNamespace,
} from '../../support/containerd';
import { findInPath } from '../../../src/adapters/shim/os/find-executable';
import { ok, processRuns, taskList, waitForStatus } from './support';
import { groupServers, mountedAt, SKIFF, skiffRuncContainers, skiffTaskDirs } from './skiff-support';
import { waitFor } from '../../support/wait-for';

/**
 * Calls cut short by the death of skiff's serving process at the one moment that leaves
 * something only the keeper knows of (docs/failure-domains.md, "A Create cut short", "An exec's
 * Start cut short"): the OCI runtime (`BinaryName` in the task's runtime options file) is a
 * runc wrapper that SIGKILLs the serving process once `runc create` has made a container, or
 * before it runs `runc exec`, which then runs on as the pod keeper's child.
 *
 * containerd is answered UNAVAILABLE and cleans up as after any failed call (a Create: Delete,
 * Shutdown, then the shim's `delete`; an exec's Start: the exec's Delete): nothing may be left,
 * neither a process, a `binary://` logger, runc state, a rootfs mount, skiff's task directory
 * nor a keeper holding any of them.
 */
const RESTARTED = /skiff's serving process restarted while \w+ was in flight/;

if (containerdTestsEnabled())
  describe('containerd 1.6 with skiff behind pod keepers: the serving process SIGKILLed in the middle of a call', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-crash-midway-'));
    const killFile = join(dir, 'kill-after-create');
    const madeFile = join(dir, 'made');
    const execKillFile = join(dir, 'kill-before-exec');
    const execMadeFile = join(dir, 'exec-made');
    const logger = join(dir, 'logger');
    let env: PrivateContainerd;
    let ns: string;
    let options: string;

    beforeAll(async () => {
      const runc = findInPath('runc', process.env.PATH ?? '') as string;
      const wrapper = join(dir, 'runc-then-kill');
      // While its kill file is there, the SIGKILL of the pid it names: after a `create` that
      // succeeded (the keeper's pid, the container's and the keeper's command line written
      // first), or before an `exec`, given the time to be taken over first (its pid written after).
      writeFileSync(
        wrapper,
        `#!/bin/sh
pidfile=; prev=
for a in "$@"; do [ "$prev" = --pid-file ] && pidfile=$a; prev=$a; done
case " $* " in *" exec "*)
  if [ -f ${execKillFile} ]; then
    kill -9 "$(cat ${execKillFile})"; rm -f ${execKillFile}
    sleep 2
    ${runc} "$@"; rc=$?
    cat "$pidfile" > ${execMadeFile}
    exit $rc
  fi;;
esac
${runc} "$@"; rc=$?
case " $* " in *" create "*)
  if [ $rc = 0 ] && [ -f ${killFile} ]; then
    echo "$PPID $(cat "$pidfile") $(tr '\\0' ' ' < /proc/$PPID/cmdline)" > ${madeFile}
    kill -9 "$(cat ${killFile})"; rm -f ${killFile}
  fi;;
esac
exit $rc
`,
      );
      chmodSync(wrapper, 0o755);
      // A `binary://` log URI's logger (docs/containerd.md, "Log URIs"): its pid, ready, then it copies.
      writeFileSync(logger, `#!/bin/sh\necho $$ > ${logger}.pid\nprintf x >&5\nexec 5>&-\nexec cat <&3 >/dev/null\n`);
      chmodSync(logger, 0o755);
      options = join(dir, 'options.toml');
      writeFileSync(options, `BinaryName = "${wrapper}"\n`);
      env = await startContainerd({ logLevel: 'debug' });
      ns = uniqueNamespace('crash-midway');
      await env.importImages(ns);
    });
    afterAll(async () => {
      await env?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    const run = (id: string, extra: readonly string[] = []) =>
      env.ctr(ns, ['run', '-d', ...SKIFF, ...extra, BUSYBOX_IMAGE, id, 'sleep', '1000']);

    it('a Create: leaves nothing of the half-made container; the same id runs after, and the other tasks run on', async () => {
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, 'base', 'sleep', '1000']);
      const base = (await taskList(env, ns)).get('base');
      const [server] = groupServers(env);
      writeFileSync(killFile, String(server.pid));

      const failed = await run('half', ['--runtime-config-path', options, '--log-uri', `binary://${logger}`]);
      expect(failed.status).not.toBe(0);
      expect(failed.stderr).toMatch(RESTARTED);
      expect(existsSync(killFile)).toBe(false);
      const [keeper, init, ...keeperArgv] = readFileSync(madeFile, 'utf8').trim().split(' ');
      expect(keeperArgv.at(-1)).toBe('keep');
      expect(groupServers(env).map((s) => s.pid)).not.toContain(server.pid);

      // Removed at containerd's Delete of the task, which follows a failed Create, not by the
      // `delete` that comes only once the task's connection closes.
      await waitFor('the serving process to say it removed the leftover', () =>
        readFileSync(env.paths.log, 'utf8').includes(
          'task "half": removed what its Create, cut short by a crash, left',
        ),
      );
      await waitFor('the half-made container to be gone', () => !processRuns(Number(init)));
      await waitFor('its logger to be gone', () => !processRuns(Number(readFileSync(`${logger}.pid`, 'utf8'))));
      await waitFor('its keeper to be gone', () => !processRuns(Number(keeper)));
      expect((await taskList(env, ns)).has('half')).toBe(false);
      expect(skiffTaskDirs(env, ns)).toEqual(['base']);
      expect(skiffRuncContainers(env, ns)).toEqual(['base']);
      expect(mountedAt(join(env.paths.state, 'io.containerd.runtime.v2.task', ns, 'half', 'rootfs'))).toBeUndefined();

      // The base task was served through the crash, and the id can be used again.
      expect((await taskList(env, ns)).get('base')).toEqual(base);
      const containers = (await ok(env, ns, ['containers', 'ls', '-q'])).stdout.split('\n');
      if (containers.includes('half')) await ok(env, ns, ['containers', 'rm', 'half']);
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, 'half', 'sleep', '1000']);
      expect((await taskList(env, ns)).get('half')?.status).toBe('RUNNING');
      for (const id of ['half', 'base']) {
        await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', id]);
        await waitForStatus(env, ns, id, 'STOPPED');
        await ok(env, ns, ['tasks', 'rm', id]);
        await ok(env, ns, ['containers', 'rm', id]);
      }
      expect(skiffTaskDirs(env, ns)).toEqual([]);
      expect(skiffRuncContainers(env, ns)).toEqual([]);
    }, 40_000);

    it("an exec's Start: what runc makes after the crash is ended, the client reads the end and deletes it; the task runs on", async () => {
      await ok(env, ns, [
        'run',
        '-d',
        ...SKIFF,
        '--runtime-config-path',
        options,
        BUSYBOX_IMAGE,
        'host',
        'sleep',
        '1000',
      ]);
      const host = (await taskList(env, ns)).get('host');
      const [server] = groupServers(env);
      writeFileSync(execKillFile, String(server.pid));

      // ctr's Start is answered UNAVAILABLE at once; ctr then waits for the end of the exec's
      // output before it deletes the exec. The new serving process finds the exec never started
      // and runc's pid file not written yet: it releases the key, and the keeper ends what runc
      // makes (docs/keeper-protocol.md, `D`) with the output FIFO's holder.
      const failed = await env.ctr(ns, ['tasks', 'exec', '--exec-id', 'late', 'host', 'sleep', '1000']);
      expect(failed.status).not.toBe(0);
      expect(failed.stderr).toMatch(RESTARTED);
      const made = Number(
        await waitFor(
          'runc to make the exec',
          () => existsSync(execMadeFile) && readFileSync(execMadeFile, 'utf8').trim(),
        ),
      );
      expect(made).toBeGreaterThan(0);
      await waitFor('the exec nobody wants to be ended', () => !processRuns(made));

      const ps = (await ok(env, ns, ['tasks', 'ps', 'host'])).stdout.trim().split('\n').slice(1);
      expect(ps.map((row) => Number(row.trim().split(/\s+/)[0]))).toEqual([host?.pid]);
      expect((await taskList(env, ns)).get('host')).toEqual(host);
      const again = await env.ctr(ns, ['tasks', 'exec', '--exec-id', 'late', 'host', 'sh', '-c', 'exit 4']);
      expect(again.status).toBe(4);
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', 'host']);
      await waitForStatus(env, ns, 'host', 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', 'host']);
      await ok(env, ns, ['containers', 'rm', 'host']);
      expect(skiffTaskDirs(env, ns)).toEqual([]);
    }, 40_000);
  });
