import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
import { ok, processRuns, taskList, TaskRow, waitForStatus } from './support';
import { COUNTER, groupServers, runCounter, SKIFF, skiffRuncContainers, skiffTaskDirs } from './skiff-support';
import { waitFor } from '../../support/wait-for';
import { argvOf, parentOf } from '../../support/procs';

/**
 * Calls in flight when skiff's serving process dies (docs/keeper-protocol.md, "The relay"):
 * behind pod keepers each one is either done, with a right answer, or answered UNAVAILABLE
 * naming the restart; never a wrong answer, a task made twice or one left half-made.
 */
/** The keeper's answer to a call in flight that is not read-only. */
const RESTARTED = /skiff's serving process restarted while \w+ was in flight/;
const ROUNDS = 3;

/** How each call ended: right, refused naming the restart, or wrong (what was wrong). */
interface Tally {
  right: number;
  restarted: string[];
  wrong: string[];
}

/** The counter's lines, in order, 0 first; a gap is a lost byte. */
function counted(text: string): number[] {
  return text
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map(Number);
}

if (containerdTestsEnabled())
  describe('containerd 1.6 with skiff behind pod keepers: calls in flight when the serving process is SIGKILLed', () => {
    let env: PrivateContainerd;
    let ns: string;
    let logDir: string;

    beforeAll(async () => {
      env = await startContainerd();
      ns = uniqueNamespace('inflight');
      await env.importImages(ns);
      logDir = mkdtempSync(join(tmpdir(), 'skiff-inflight-'));
    });
    afterAll(async () => {
      await env?.stop();
      rmSync(logDir, { recursive: true, force: true });
    });

    it('are done right or refused naming the restart, never answered wrong; every task is whole and deletable', async () => {
      const log = join(logDir, 'counter.log');
      await runCounter(env, ns, 'counter', log);
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, 'base', 'sleep', '1000']);
      // Its stdout is a FIFO nobody reads once `ctr run -d` has gone (ctr copies what comes
      // before) until `ctr task attach`: what it prints meanwhile waits in the pipe.
      const talkerRun = await ok(env, ns, [
        'run',
        '-d',
        ...SKIFF,
        BUSYBOX_IMAGE,
        'talker',
        'sh',
        '-c',
        COUNTER.replace('20000', '100000'),
      ]);
      const bases = await taskList(env, ns);
      const base = bases.get('base') as TaskRow;
      const tally: Tally = { right: 0, restarted: [], wrong: [] };
      /** Tasks whose making was refused with the restart: they may or may not exist. */
      const uncertain = new Set<string>();
      const made = new Set<string>();
      let n = 0;

      /** Judges one call: `right` says whether a successful answer is the right one. */
      const judge = (what: string, result: CtrResult, right: (r: CtrResult) => boolean): boolean => {
        if (right(result)) {
          tally.right++;
          return true;
        }
        if (RESTARTED.test(result.stderr)) {
          tally.restarted.push(`${what}: ${result.stderr.trim().split('\n').pop()}`);
          return false;
        }
        tally.wrong.push(
          `${what}: exit ${result.status}${result.timedOut ? ' (timed out)' : ''}, stdout ${JSON.stringify(result.stdout)}: ${result.stderr.trim()}`,
        );
        return false;
      };

      const workers: Record<string, () => Promise<void>> = {
        exec: async () => {
          const i = n++;
          const code = 2 + (i % 40);
          const args = ['tasks', 'exec', '--exec-id', `x${i}`, 'base', 'sh', '-c', `echo ${i}; exit ${code}`];
          judge(`exec x${i}`, await env.ctr(ns, args), (r) => r.status === code && r.stdout === `${i}\n`);
        },
        ls: async () => {
          const result = await env.ctr(ns, ['tasks', 'ls']);
          judge('ls', result, (r) => {
            if (r.status !== 0) return false;
            const row = r.stdout.split('\n').find((l) => l.startsWith('base '));
            return row !== undefined && row.trim().split(/\s+/).join(' ') === `base ${base.pid} RUNNING`;
          });
        },
        ps: async () => {
          const result = await env.ctr(ns, ['tasks', 'ps', 'base']);
          judge('ps', result, (r) => r.status === 0 && new RegExp(`^${base.pid}\\s`, 'm').test(r.stdout));
        },
        cont: async () => {
          judge('kill -s CONT', await env.ctr(ns, ['tasks', 'kill', '-s', 'CONT', 'base']), (r) => r.status === 0);
        },
        run: async () => {
          const id = `r${n++}`;
          const result = await env.ctr(ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, id, 'sleep', '1000']);
          if (judge(`run ${id}`, result, (r) => r.status === 0)) made.add(id);
          else uncertain.add(id);
        },
        start: async () => {
          const id = `s${n++}`;
          await ok(env, ns, ['containers', 'create', ...SKIFF, BUSYBOX_IMAGE, id, 'sleep', '1000']);
          const result = await env.ctr(ns, ['tasks', 'start', '-d', id]);
          if (judge(`start ${id}`, result, (r) => r.status === 0)) made.add(id);
          else uncertain.add(id);
        },
      };

      for (let round = 0; round < ROUNDS; round++) {
        let storming = true;
        const loops = Object.values(workers).map(async (call) => {
          while (storming) await call();
        });
        await new Promise((resolve) => setTimeout(resolve, 400 + 100 * round));
        const servers = groupServers(env);
        expect(servers).toHaveLength(1);
        process.kill(servers[0].pid, 'SIGKILL');
        await new Promise((resolve) => setTimeout(resolve, 700));
        storming = false;
        await Promise.all(loops);
        expect(groupServers(env).map((s) => s.pid)).not.toContain(servers[0].pid);
      }
      console.log(
        `skiff behind pod keepers, ${ROUNDS} SIGKILLs of the serving process under a storm of ctr calls: ${tally.right} right, ` +
          `${tally.restarted.length} refused naming the restart (${[...new Set(tally.restarted.map((r) => r.split(':')[0].split(' ')[0]))].join(', ')}), ` +
          `${tally.wrong.length} wrong`,
      );
      expect(tally.wrong).toEqual([]);

      // containerd and skiff agree on every task: each one made is RUNNING, its init the keeper's child.
      const tasks = await taskList(env, ns);
      const containers = (await ok(env, ns, ['containers', 'ls', '-q'])).stdout.trim().split('\n');
      for (const id of tasks.keys()) expect(containers).toContain(id);
      for (const id of made) {
        expect([id, tasks.get(id)?.status]).toEqual([id, 'RUNNING']);
        expect(argvOf(parentOf((tasks.get(id) as TaskRow).pid)).at(-1)).toBe('keep');
      }
      for (const id of tasks.keys())
        if (!made.has(id)) expect(['counter', 'base', 'talker', ...uncertain]).toContain(id);
      expect(skiffTaskDirs(env, ns)).toEqual([...tasks.keys()].sort());
      expect(skiffRuncContainers(env, ns)).toEqual([...tasks.keys()].sort());
      // Each status is runc's own: a Start refused with the restart may have started the container.
      const root = join(env.paths.state, 'skiff', ns, 'runc');
      for (const [id, row] of tasks) {
        const state = JSON.parse(execFileSync('runc', ['--root', root, 'state', id], { encoding: 'utf8' })) as {
          status: string;
        };
        expect([id, row.status]).toEqual([id, state.status.toUpperCase()]);
      }

      // After the crashes: pause, resume, metrics of a task the first serving process made.
      await ok(env, ns, ['tasks', 'pause', 'base']);
      expect((await taskList(env, ns)).get('base')?.status).toBe('PAUSED');
      await ok(env, ns, ['tasks', 'resume', 'base']);
      expect((await taskList(env, ns)).get('base')?.status).toBe('RUNNING');
      expect((await ok(env, ns, ['tasks', 'metrics', 'base'])).stdout).toMatch(/pids\.current\s+[1-9]/);

      // Attach: the talker's output waited in its FIFO through the crashes, and goes on.
      const attached = await env.ctr(ns, ['tasks', 'attach', 'talker'], { timeoutMs: 3000 });
      expect(attached.timedOut).toBe(true);
      const talked = [...counted(talkerRun.stdout), ...counted(attached.stdout)];
      expect(counted(attached.stdout).length).toBeGreaterThan(10);
      expect(talked).toEqual(talked.map((_, i) => i));

      // The file log kept flowing with no gap.
      const atCheck = counted(readFileSync(log, 'utf8')).length;
      await waitFor('the counter to go on', () => counted(readFileSync(log, 'utf8')).length > atCheck + 10);
      const lines = counted(readFileSync(log, 'utf8'));
      expect(lines).toEqual(lines.map((_, i) => i));

      // Every task is deletable, whatever the storm left of it; nothing they ran is left.
      const pids = [...tasks.values()].map((t) => t.pid).filter((pid) => pid > 0);
      for (const id of tasks.keys()) {
        if (tasks.get(id)?.status !== 'STOPPED') await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', id]);
        await waitForStatus(env, ns, id, 'STOPPED');
        await ok(env, ns, ['tasks', 'rm', id]);
      }
      await ok(env, ns, ['containers', 'rm', ...containers]);
      expect((await taskList(env, ns)).size).toBe(0);
      expect(skiffTaskDirs(env, ns)).toEqual([]);
      expect(skiffRuncContainers(env, ns)).toEqual([]);
      await waitFor('no process of the tasks left', () => pids.every((pid) => !processRuns(pid)));
    }, 55_000);
  });
