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
 * A Create in flight when skiff's serving process dies (docs/failure-domains.md, "Known
 * limits"): `runc create` runs as the pod keeper's child and finishes, but the serving process
 * that asked for it is gone before it wrote the task's record. containerd is answered
 * UNAVAILABLE and cleans up as after any failed Create (Delete, Shutdown, then the shim's
 * `delete`): nothing of the half-made container may be left, neither its process, its
 * `binary://` logger, its runc state, its rootfs mount, skiff's task directory nor a keeper
 * holding it.
 *
 * The crash comes at the one moment that makes it: the OCI runtime (`BinaryName` in the task's
 * runtime options file) is a runc wrapper that SIGKILLs the serving process once `runc create`
 * has made the container, before the keeper can tell the serving process so.
 */
const RESTARTED = /skiff's serving process restarted while \w+ was in flight/;

if (containerdTestsEnabled())
  describe('containerd 1.6 with skiff behind pod keepers: the serving process SIGKILLed in the middle of a Create', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-crash-create-'));
    const killFile = join(dir, 'kill-after-create');
    const madeFile = join(dir, 'made');
    const logger = join(dir, 'logger');
    let env: PrivateContainerd;
    let ns: string;
    let options: string;

    beforeAll(async () => {
      const runc = findInPath('runc', process.env.PATH ?? '') as string;
      const wrapper = join(dir, 'runc-then-kill');
      // After a `create` that succeeded, and only while the kill file is there: the keeper's pid
      // and the container's, then the SIGKILL of the pid the file names.
      writeFileSync(
        wrapper,
        `#!/bin/sh
${runc} "$@"; rc=$?
case " $* " in *" create "*)
  if [ $rc = 0 ] && [ -f ${killFile} ]; then
    pidfile=; prev=
    for a in "$@"; do [ "$prev" = --pid-file ] && pidfile=$a; prev=$a; done
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
      ns = uniqueNamespace('crash-create');
      await env.importImages(ns);
    });
    afterAll(async () => {
      await env?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    const run = (id: string, extra: readonly string[] = []) =>
      env.ctr(ns, ['run', '-d', ...SKIFF, ...extra, BUSYBOX_IMAGE, id, 'sleep', '1000']);

    it('leaves nothing of the half-made container; the same id runs after, and the other tasks run on', async () => {
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
  });
