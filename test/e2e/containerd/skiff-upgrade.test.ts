import { spawn } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BUSYBOX_IMAGE,
  containerdTestsEnabled,
  CtrResult,
  PrivateContainerd,
  startContainerd,
  uniqueNamespace,
} from '../../support/containerd';
import { TtrpcTaskClient } from '../../../src/adapters/shim/outbound/task-client/ttrpc-task-client';
import { ok, processRuns, taskList, waitForStatus } from './support';
import { forwardedTopics, groupServers, groupServersUnder, runCounter, SKIFF, TRAPPED } from './skiff-support';
import { waitFor } from '../../support/wait-for';

/**
 * An upgrade in place (docs/upgrade.md): skiff's files are replaced by a new version under running
 * containers, `skiff containerd restart` hands them to a new serving process started from the new
 * files, and nothing is lost: no call made meanwhile fails, no exit, no byte of output.
 */
const ROOT = join(__dirname, '../../..');

const SLOW_CREATE_S = 2;

function findRunc(): string {
  for (const dir of (process.env.PATH ?? '').split(':')) if (existsSync(join(dir, 'runc'))) return join(dir, 'runc');
  throw new Error('runc is not on PATH');
}

/** skiff as a node has it installed: the files the shim and the serving process run from, in a directory of its own. */
function installCopy(dir: string): void {
  mkdirSync(join(dir, 'build'), { recursive: true });
  for (const part of ['bin', 'dist', 'package.json', 'binding.gyp'])
    cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  cpSync(join(ROOT, 'build/Release'), join(dir, 'build/Release'), {
    recursive: true,
    filter: (source) => !source.includes('obj.target'),
  });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
}

/** What an install of a new version does to the files: each replaced by a new one (a new inode), the version bumped. */
function upgradeCopy(dir: string, version: string): void {
  const replace = (path: string, content?: string) => {
    const next = `${path}.new`;
    if (content === undefined) copyFileSync(path, next);
    else writeFileSync(next, content);
    renameSync(next, path);
  };
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  replace(join(dir, 'package.json'), JSON.stringify({ ...pkg, version }, null, 2));
  replace(join(dir, 'dist/containerd.bundle.js'));
  replace(join(dir, 'build/Release/containerd-shim-skiff-v2'));
}

/**
 * `skiff containerd restart` of the installed copy, as a node's operator runs it: its serving
 * processes are the ones that run that package's bin/containerd-daemon.js (serving-processes.ts).
 */
function restartCommand(
  installed: string,
  state: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(installed, 'bin/run.js'), 'containerd', 'restart', '--state', state]);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

/** The pod socket a task is served through: its bundle's address, which `start` wrote. */
function podSocket(env: PrivateContainerd, ns: string, id: string): string {
  return readFileSync(join(env.paths.bundles, ns, id, 'address'), 'utf8').replace('unix://', '');
}

if (containerdTestsEnabled())
  describe('containerd 1.6 with skiff behind pod keepers: an upgrade in place', () => {
    let env: PrivateContainerd;
    let ns: string;
    let work: string;
    let installed: string;
    /**
     * The runc skiff finds on containerd's PATH: the container `slow`'s create and the exec
     * `slow-exec`'s start take SLOW_CREATE_S, so calls that change something are in flight for sure
     * when the hand-over begins, one of them on a connection that other calls use meanwhile.
     */
    let slowRunc: string;

    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), 'skiff-upgrade-'));
      installed = join(work, 'skiff');
      installCopy(installed);
      const tools = join(work, 'tools');
      mkdirSync(tools);
      slowRunc = join(tools, 'runc');
      writeFileSync(
        slowRunc,
        [
          '#!/bin/sh',
          'case " $* " in',
          `*" create "*" slow "*) touch "$0.creating"; sleep ${SLOW_CREATE_S} ;;`,
          `*" exec "*slow-exec*) touch "$0.executing"; sleep ${SLOW_CREATE_S} ;;`,
          'esac',
          `exec ${findRunc()} "$@"`,
          '',
        ].join('\n'),
        { mode: 0o700 },
      );
      env = await startContainerd({
        logLevel: 'debug',
        shimDirs: [join(installed, 'bin'), tools],
      });
      ns = uniqueNamespace('upgrade');
      await env.importImages(ns);
    });
    afterAll(async () => {
      await env?.stop();
      rmSync(work, { recursive: true, force: true });
    });

    it('hands every container to a new serving process of the new version, with no call refused and nothing lost', async () => {
      const [counter, lasting, ending] = ['counter', 'lasting', 'ending'];
      const log = join(work, 'counter.log');
      await runCounter(env, ns, counter, log);
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, lasting, 'sleep', '1000']);
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, ending, 'sh', '-c', TRAPPED]);
      const before = await taskList(env, ns);
      const exits = () => forwardedTopics(env, ns).filter((t) => t === '/tasks/exit').length;
      const exitsBefore = exits();
      const [old] = groupServersUnder(env.paths.dir);
      expect(groupServers(env)).toHaveLength(1);
      expect(old.argv.some((a) => a.startsWith(`${installed}/`))).toBe(true);

      upgradeCopy(installed, '99.0.0-upgraded');

      // Calls all through the hand-over: containerd's (ctr task ls: a State per task) and ones that
      // change something (an exec's Exec, Start, Delete). None may fail.
      let calling = true;
      const failures: string[] = [];
      let calls = 0;
      let execsDone = 0;
      const call = async (args: string[], status: number) => {
        const result: CtrResult = await env.ctr(ns, args);
        calls++;
        if (args[1] === 'exec' && result.status === status) execsDone++;
        if (result.status !== status) failures.push(`ctr ${args.join(' ')}: ${result.status} ${result.stderr.trim()}`);
      };
      const lister = (async () => {
        while (calling) await call(['tasks', 'ls'], 0);
      })();
      const execs = (async () => {
        for (let n = 0; calling; n++)
          await call(['tasks', 'exec', '--exec-id', `during-${n}`, lasting, 'sh', '-c', 'exit 3'], 3);
      })();
      const created = ['slow'];
      let creating: Array<Promise<void>> = [];
      let restarted: { status: number | null; stdout: string; stderr: string };
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));

        // A Create and an exec's Start in flight when the hand-over begins (their runc made slow): they
        // must succeed, the Start although State calls come on its connection meanwhile.
        creating = [
          call(['run', '-d', ...SKIFF, BUSYBOX_IMAGE, 'slow', 'sleep', '1000'], 0),
          call(['tasks', 'exec', '--exec-id', 'slow-exec', lasting, 'sh', '-c', 'exit 5'], 5),
        ];
        await waitFor('the slow runc calls to begin', () =>
          ['creating', 'executing'].every((what) => existsSync(`${slowRunc}.${what}`)),
        );
        const restarting = restartCommand(installed, env.paths.state);
        // An exit during the hand-over: reported once, with its real status.
        setTimeout(() => process.kill((before.get(ending) as { pid: number }).pid, 'SIGTERM'), 30);
        restarted = await restarting;
        await new Promise((resolve) => setTimeout(resolve, 300));
      } finally {
        calling = false;
        await Promise.all([lister, execs, ...creating]);
      }
      console.log(
        `skiff containerd restart: ${restarted.stdout.trim()}; ${calls} ctr calls made meanwhile, ${failures.length} failed`,
      );
      expect(restarted).toMatchObject({ status: 0, stderr: '' });
      expect(failures).toEqual([]);
      expect(calls).toBeGreaterThan(4);

      // A new serving process, of the new version's files.
      const successor = Number(/handed over to (\d+)/.exec(restarted.stdout)?.[1]);
      expect(successor).not.toBe(old.pid);
      expect(processRuns(old.pid)).toBe(false);
      expect(groupServers(env).map((s) => s.pid)).toEqual([successor]);
      const client = new TtrpcTaskClient(podSocket(env, ns, lasting));
      try {
        expect(await client.connect(lasting)).toMatchObject({ shimPid: successor, version: '99.0.0-upgraded' });
      } finally {
        client.close();
      }

      const after = await taskList(env, ns);
      for (const id of created) expect(after.get(id)?.status).toBe('RUNNING');
      expect(after.get(counter)).toEqual(before.get(counter));
      expect(after.get(lasting)).toEqual(before.get(lasting));
      await waitForStatus(env, ns, ending, 'STOPPED');
      // One /tasks/exit per exec made meanwhile, and the ending container's.
      await waitFor('the /tasks/exit of the ending container', () => exits() >= exitsBefore + execsDone + 1);
      expect((await ok(env, ns, ['tasks', 'rm', ending])).stderr).toContain('exit code 7');

      // Exec and kill work on what the old serving process made; a new container runs on the new shim binary.
      expect(
        await env.ctr(ns, ['tasks', 'exec', '--exec-id', 'after', lasting, 'sh', '-c', 'echo again; exit 4']),
      ).toMatchObject({
        status: 4,
        stdout: 'again\n',
      });
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, 'newer', 'sleep', '1000']);
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', lasting]);
      for (const id of ['newer', ...created]) await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', id]);
      await waitForStatus(env, ns, lasting, 'STOPPED');
      expect((await ok(env, ns, ['tasks', 'rm', lasting])).stderr).toContain('exit code 137');
      for (const id of ['newer', ...created]) {
        await waitForStatus(env, ns, id, 'STOPPED');
        await ok(env, ns, ['tasks', 'rm', id]);
      }

      // Output kept flowing, with no gap.
      const counted = () => readFileSync(log, 'utf8').trim().split('\n').map(Number);
      const atCheck = counted().length;
      await waitFor('the counter to go on', () => counted().length > atCheck + 10);
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', counter]);
      await waitForStatus(env, ns, counter, 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', counter]);
      const lines = counted();
      expect(lines).toEqual(lines.map((_, i) => i));
      await ok(env, ns, ['containers', 'rm', counter, lasting, ending, 'newer', ...created]);
      // Each exactly once: the ending one, the execs, the one after, lasting, newer, the ones made meanwhile, counter.
      expect(exits()).toBe(exitsBefore + execsDone + 5 + created.length);
    });

    it('keeps a Wait in flight through hand-overs in a row: a client waiting on its container sees only its exit', async () => {
      // ctr run without -d waits on its task (a Wait through containerd, as the CRI plugin keeps one per container).
      const waiting = env.ctr(ns, ['run', ...SKIFF, BUSYBOX_IMAGE, 'waited', 'sleep', '1000'], { timeoutMs: 60_000 });
      await waitForStatus(env, ns, 'waited', 'RUNNING');
      // How long a call waits for a hand-over with nothing slow in flight: ctr task ls all along.
      const longest = { before: 0, during: 0 };
      const now = { phase: 'before' as keyof typeof longest | 'done' };
      const lister = (async () => {
        for (let at = now.phase; at !== 'done'; at = now.phase) {
          const result = await env.ctr(ns, ['tasks', 'ls']);
          expect(result.status).toBe(0);
          longest[at] = Math.max(longest[at], Math.round(result.ms));
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 500));
      now.phase = 'during';
      try {
        for (let i = 0; i < 4; i++) {
          const before = groupServers(env).map((s) => s.pid);
          expect(await restartCommand(installed, env.paths.state)).toMatchObject({ status: 0, stderr: '' });
          expect(groupServers(env).map((s) => s.pid)).not.toEqual(before);
        }
      } finally {
        now.phase = 'done';
        await lister;
      }
      console.log(
        `ctr task ls through 4 hand-overs in a row: ${longest.during} ms at the longest (${longest.before} ms before them)`,
      );
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', 'waited']);
      // ctr run deletes the task it waited for.
      expect(await waiting).toMatchObject({ status: 137 });
      await ok(env, ns, ['containers', 'rm', 'waited']);
    });
  });
