import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BUSYBOX_IMAGE,
  containerdTestsEnabled,
  LTS_VERSION,
  ltsContainerdTestsEnabled,
  PrivateContainerd,
  startContainerd,
  uniqueNamespace,
} from '../../support/containerd';
import { ok, processRuns, taskList, waitForStatus } from './support';
import { COUNTER, groupServers, SKIFF } from './skiff-support';
import { waitFor } from '../../support/wait-for';
import { argvOf, openFds, parentOf, pids } from '../../support/procs';

/**
 * `binary://` log URIs (docs/containerd.md, "Log URIs"), through skiff and through containerd's
 * runc shim side by side: the same logger, a script the test writes, gets the same fds 3 and 4,
 * environment and arguments, and its readiness on fd 5; a logger that is missing or exits at once
 * gets the runc shim's answer for that task alone; and behind skiff the logger outlives a SIGKILL
 * of the serving process, as the container does, and ends at the task's Delete.
 */
const RUNC = ['--runtime', 'io.containerd.runc.v2'];

/** What the test's logger wrote of task `id` into `out` (<out>/<id>.<what>), '' before it did. */
const loggerWrote = (out: string, id: string, what: string) =>
  existsSync(join(out, `${id}.${what}`)) ? readFileSync(join(out, `${id}.${what}`), 'utf8') : '';
const RUNTIMES = [
  ['the runc shim', RUNC],
  ['skiff', SKIFF],
] as const;

if (containerdTestsEnabled())
  describe('binary:// log URIs under containerd 1.6, skiff beside the runc shim', () => {
    let env: PrivateContainerd;
    let ns: string;
    const dir = mkdtempSync(join(tmpdir(), 'skiff-logger-'));
    const out = join(dir, 'out');
    let n = 0;

    // Writes what it was given into <out>/<id>.*: its argv, its environment, its pid; fd 3 and 4 copied.
    const logger = join(dir, 'logger');
    // Exits at once without a word on fd 5 (its end-of-file is readiness to the runc shim).
    const quitter = join(dir, 'quitter');

    beforeAll(async () => {
      writeFileSync(
        logger,
        [
          '#!/bin/sh',
          `o=${out}/$CONTAINER_ID`,
          'echo "$#:$*" > $o.args',
          // Its whole environment as it came (the shell adds its own variables to `env`'s).
          `/usr/bin/tr '\\0' '\\n' < /proc/$$/environ | /usr/bin/sort > $o.env`,
          'echo $$ > $o.pid',
          '/bin/cat <&3 > $o.stdout &',
          '/bin/cat <&4 > $o.stderr &',
          // Ready: a byte on fd 5, then closed, as containerd's loggers do.
          'printf x >&5',
          'exec 5>&-',
          'wait',
          'echo done > $o.done',
          '',
        ].join('\n'),
      );
      writeFileSync(quitter, '#!/bin/sh\nexit 0\n');
      chmodSync(logger, 0o755);
      chmodSync(quitter, 0o755);
      env = await startContainerd();
      ns = uniqueNamespace('loguri');
      await env.importImages(ns);
    });
    beforeEach(() => {
      rmSync(out, { recursive: true, force: true });
      mkdirSync(out);
    });
    afterAll(async () => {
      await env?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    const read = (id: string, what: string) => loggerWrote(out, id, what);

    async function runBoth(
      run: (runtime: readonly string[], id: string) => Promise<{ status: number | null; stderr: string }>,
    ) {
      const outcomes: Record<string, unknown> = {};
      for (const [name, runtime] of RUNTIMES) {
        const id = `l${n++}`;
        const result = await run(runtime, id);
        outcomes[name] = { id, ...result };
      }
      return outcomes as Record<(typeof RUNTIMES)[number][0], { id: string; status: number | null; stderr: string }>;
    }

    it('starts the logger with the process stdout on fd 3 and stderr on fd 4, only CONTAINER_ID and CONTAINER_NAMESPACE, and the query as arguments', async () => {
      const uri = `binary://${logger}?name=web&-v`;
      const seen: Record<string, unknown> = {};
      for (const [name, runtime] of RUNTIMES) {
        const id = `run${n++}`;
        const result = await env.ctr(ns, [
          'run',
          ...runtime,
          '--log-uri',
          uri,
          BUSYBOX_IMAGE,
          id,
          'sh',
          '-c',
          'echo out; echo err >&2; exit 3',
        ]);
        expect(result.status).toBe(3);
        // The runc shim ends its logger at Delete (SIGTERM), before it could say done: its copies are what counts.
        await waitFor(`${name}'s logger to copy`, () => read(id, 'stdout') !== '' && read(id, 'stderr') !== '');
        seen[name] = {
          args: read(id, 'args'),
          env: read(id, 'env').replaceAll(id, '<id>'),
          stdout: read(id, 'stdout'),
          stderr: read(id, 'stderr'),
        };
        await ok(env, ns, ['containers', 'rm', id]);
      }
      expect(seen['the runc shim']).toEqual({
        // Go's map of the query gives its keys in any order; skiff keeps the URI's.
        args: expect.stringMatching(/^4:(name web -v |-v {2}name web)\n$/),
        env: `CONTAINER_ID=<id>\nCONTAINER_NAMESPACE=${ns}\n`,
        stdout: 'out\n',
        stderr: 'err\n',
      });
      expect(seen.skiff).toEqual({
        args: '4:name web -v \n',
        env: `CONTAINER_ID=<id>\nCONTAINER_NAMESPACE=${ns}\n`,
        stdout: 'out\n',
        stderr: 'err\n',
      });
    });

    it("gives an exec's output to a logger of its own, named by the exec id, as the runc shim does", async () => {
      const seen: Record<string, unknown> = {};
      for (const [name, runtime] of RUNTIMES) {
        const id = `ex${n++}`;
        await ok(env, ns, ['run', '-d', ...runtime, BUSYBOX_IMAGE, id, 'sleep', '1000']);
        const exec = `${id}-e`;
        const result = await env.ctr(
          ns,
          [
            'tasks',
            'exec',
            '--exec-id',
            exec,
            '--log-uri',
            `binary://${logger}`,
            id,
            'sh',
            '-c',
            'echo exec-out; echo exec-err >&2; exit 5',
            // ctr's exec takes no --fifo-dir beside --log-uri (there are no FIFOs).
          ],
          { fifoDir: undefined },
        );
        await waitFor(
          `${name}'s exec logger to copy`,
          () => read(exec, 'stdout') !== '' && read(exec, 'stderr') !== '',
        );
        seen[name] = {
          status: result.status,
          env: read(exec, 'env').replaceAll(exec, '<exec id>'),
          stdout: read(exec, 'stdout'),
          stderr: read(exec, 'stderr'),
        };
        await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', id]);
        await waitForStatus(env, ns, id, 'STOPPED');
        await ok(env, ns, ['tasks', 'rm', id]);
        await ok(env, ns, ['containers', 'rm', id]);
      }
      expect(seen.skiff).toEqual(seen['the runc shim']);
      expect(seen.skiff).toEqual({
        status: 5,
        env: `CONTAINER_ID=<exec id>\nCONTAINER_NAMESPACE=${ns}\n`,
        stdout: 'exec-out\n',
        stderr: 'exec-err\n',
      });
    });

    it('fails only that task for a logger that is not there, and treats one that exits at once as ready, as the runc shim does', async () => {
      const lasting = `last${n++}`;
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, lasting, 'sleep', '1000']);
      const [server] = groupServers(env);
      const fdsBefore = openFds(server.pid);
      const missing = await runBoth((runtime, id) =>
        env.ctr(ns, ['run', ...runtime, '--log-uri', `binary://${dir}/absent`, BUSYBOX_IMAGE, id, 'true']),
      );
      for (const outcome of Object.values(missing)) {
        expect(outcome.status).not.toBe(0);
        expect(outcome.stderr).toContain(`${dir}/absent`);
      }
      console.log(`a missing logger: runc shim: ${missing['the runc shim'].stderr.trim()}`);
      console.log(`a missing logger: skiff: ${missing.skiff.stderr.trim()}`);
      expect(missing.skiff.stderr.trim().split('\n')).toHaveLength(1);
      // The process writes into a pipe nobody reads (its echo fails: EPIPE), through both alike.
      const quits = await runBoth((runtime, id) =>
        env.ctr(ns, [
          'run',
          ...runtime,
          '--log-uri',
          `binary://${quitter}`,
          BUSYBOX_IMAGE,
          id,
          'sh',
          '-c',
          'sleep 0.2; echo lost',
        ]),
      );
      expect(quits.skiff.status).toBe(quits['the runc shim'].status);
      expect(quits.skiff.status).not.toBe(0);
      expect(quits.skiff.stderr).toBe(quits['the runc shim'].stderr);
      // Nothing else was lost: the other task runs, and the next one is served.
      expect((await taskList(env, ns)).get(lasting)?.status).toBe('RUNNING');
      const next = `next${n++}`;
      expect(
        (await env.ctr(ns, ['run', ...SKIFF, '--log-uri', `binary://${logger}`, BUSYBOX_IMAGE, next, 'echo', 'fine']))
          .status,
      ).toBe(0);
      await waitFor('the next logger to end', () => read(next, 'done') !== '');
      expect(read(next, 'stdout')).toBe('fine\n');
      for (const outcome of [...Object.values(missing), ...Object.values(quits)])
        await env.ctr(ns, ['containers', 'rm', outcome.id]);
      // The serving process kept none of the loggers' pipes.
      await waitFor(
        () => `the serving process's descriptors back to ${fdsBefore} (it has ${openFds(server.pid)})`,
        () => openFds(server.pid) === fdsBefore,
      );
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', lasting]);
      await waitForStatus(env, ns, lasting, 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', lasting]);
      await ok(env, ns, ['containers', 'rm', lasting, next]);
    });

    it("skiff: the logger is the pod keeper's child, outlives a SIGKILL of the serving process with no line lost, and ends at Delete", async () => {
      const id = `crash${n++}`;
      await ok(env, ns, [
        'run',
        '-d',
        ...SKIFF,
        '--log-uri',
        `binary://${logger}`,
        BUSYBOX_IMAGE,
        id,
        'sh',
        '-c',
        COUNTER,
      ]);
      await waitFor('the logger to write', () => read(id, 'stdout').split('\n').length > 5);
      const loggerPid = Number(read(id, 'pid'));
      expect(argvOf(parentOf(loggerPid)).at(-1)).toBe('keep');
      const servers = groupServers(env);
      expect(servers).toHaveLength(1);
      process.kill(servers[0].pid, 'SIGKILL');
      const atKill = read(id, 'stdout').split('\n').length;
      await waitFor(
        'the counter to go on through the logger',
        () => read(id, 'stdout').split('\n').length > atKill + 10,
      );
      expect(processRuns(loggerPid)).toBe(true);
      expect((await taskList(env, ns)).get(id)?.status).toBe('RUNNING');
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', id]);
      await waitForStatus(env, ns, id, 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', id]);
      await waitFor('the logger to end with its task', () => !processRuns(loggerPid));
      const lines = read(id, 'stdout').trim().split('\n').map(Number);
      expect(lines).toEqual(lines.map((_, i) => i));
      await ok(env, ns, ['containers', 'rm', id]);
    });
  });

/**
 * `binary-v2://` (containerd 2.2 and later: docs/containerd.md, "Log URIs"): the logger is ready
 * only once it wrote a byte on fd 5. Under containerd 2.3.4 beside its own runc shim: a logger
 * that says so gets the output, one that exits without a byte fails that task's start alike.
 */
if (ltsContainerdTestsEnabled())
  describe(`binary-v2:// log URIs under containerd ${LTS_VERSION}, skiff beside the runc shim`, () => {
    let env: PrivateContainerd;
    let ns: string;
    const dir = mkdtempSync(join(tmpdir(), 'skiff-logger-v2-'));
    const out = join(dir, 'out');
    // Says ready with a byte, then copies fd 3 and 4.
    const logger = join(dir, 'logger');
    // Closes fd 5 without a byte: ready for binary://, not for binary-v2://...
    const silent = join(dir, 'silent');
    let n = 0;

    beforeAll(async () => {
      mkdirSync(out);
      writeFileSync(
        logger,
        [
          '#!/bin/sh',
          `o=${out}/$CONTAINER_ID`,
          '/bin/cat <&3 > $o.stdout &',
          '/bin/cat <&4 > $o.stderr &',
          'printf x >&5',
          'exec 5>&-',
          'wait',
          '',
        ].join('\n'),
      );
      // ...and stays, as a logger that hung would.
      writeFileSync(silent, '#!/bin/sh\nexec 5>&-\nwhile :; do /bin/sleep 1; done\n');
      chmodSync(logger, 0o755);
      chmodSync(silent, 0o755);
      env = await startContainerd({ lts: true });
      ns = uniqueNamespace('logv2');
      await env.importImages(ns);
    });
    afterAll(async () => {
      await env?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    const read = (id: string, what: string) => loggerWrote(out, id, what);

    it('gives the output to a logger that wrote its byte, and fails the start of one that did not, as the runc shim does', async () => {
      const seen: Record<string, unknown> = {};
      for (const [name, runtime] of RUNTIMES) {
        const id = `v2ok${n++}`;
        const result = await env.ctr(ns, [
          'run',
          ...runtime,
          '--log-uri',
          `binary-v2://${logger}`,
          BUSYBOX_IMAGE,
          id,
          'sh',
          '-c',
          'echo out; echo err >&2; exit 3',
        ]);
        await waitFor(`${name}'s logger to copy`, () => read(id, 'stdout') !== '' && read(id, 'stderr') !== '');
        // skiff's serving process, and what it holds before the refused start.
        const server = name === 'skiff' ? groupServers(env)[0] : undefined;
        const fdsBefore = server === undefined ? 0 : openFds(server.pid);
        const silentId = `v2silent${n++}`;
        const refused = await env.ctr(ns, [
          'run',
          ...runtime,
          '--log-uri',
          `binary-v2://${silent}`,
          BUSYBOX_IMAGE,
          silentId,
          'echo',
          'never',
        ]);
        // ctr 2.3 warns of cgroup v1 on this machine's host: that line is not the refusal.
        const said = refused.stderr
          .trim()
          .split('\n')
          .filter((line) => !line.includes('DEPRECATION: The support for cgroup v1'));
        console.log(`a binary-v2 logger that never said ready: ${name}: ${said.join(' | ')}`);
        seen[name] = {
          status: result.status,
          stdout: read(id, 'stdout'),
          stderr: read(id, 'stderr'),
          refused: refused.status !== 0,
          says: /did not call ready/.test(refused.stderr),
          lines: said.length,
        };
        await ok(env, ns, ['containers', 'rm', id]);
        await env.ctr(ns, ['tasks', 'rm', '-f', silentId]);
        await env.ctr(ns, ['containers', 'rm', silentId]);
        // The refused start left the serving process none of the logger's pipes.
        if (server !== undefined)
          await waitFor(
            () => `the serving process's descriptors back to ${fdsBefore} (it has ${openFds(server.pid)})`,
            () => openFds(server.pid) <= fdsBefore,
          );
      }
      expect(seen['the runc shim']).toMatchObject({
        status: 3,
        stdout: 'out\n',
        stderr: 'err\n',
        refused: true,
        says: true,
      });
      expect(seen.skiff).toEqual({ ...(seen['the runc shim'] as object), lines: 1 });
      // The logger that never said ready is not left running behind either.
      await waitFor('no silent logger left', () => !pids().some((pid) => argvOf(pid).includes(silent)));
    });
  });
