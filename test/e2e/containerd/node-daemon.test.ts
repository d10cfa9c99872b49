import { ChildProcess, spawn, spawnSync } from 'node:child_process';
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
import { ok, processRuns, taskList } from './support';
import { groupServers, SKIFF } from './skiff-support';
import { waitFor } from '../../support/wait-for';
import { argAfter, argvOf, parentOf, pids } from '../../support/procs';
import { pidFileOf, readPidFile } from '../../../src/adapters/shim/os/pid-file';

/**
 * The node daemon (docs/node-daemon.md): `containerd-shim-skiff-v2 ... serve`, what the
 * systemd unit `skiff containerd unit` prints runs, keeps the namespace's serving process up
 * before the first container, through a crash and a `skiff containerd restart`, and leaves the
 * containers to their pod keepers when it stops.
 */

const ROOT = join(__dirname, '../../..');
const SHIM = join(ROOT, 'bin/containerd-shim-skiff-v2');

/** A stand-in for systemd's notification socket: every datagram, in order (python3: Node has no unix datagrams). */
function notifySocket(dir: string): { path: string; messages: () => string[]; stop: () => void } {
  const path = join(dir, 'notify.sock');
  const out = join(dir, 'notify.log');
  const script =
    'import socket,sys\n' +
    's=socket.socket(socket.AF_UNIX,socket.SOCK_DGRAM)\n' +
    `s.bind(${JSON.stringify(path)})\n` +
    `f=open(${JSON.stringify(out)},"a",buffering=1)\n` +
    'while True:\n' +
    '  f.write(s.recv(4096).decode()+"\\n")\n';
  const child = spawn('python3', ['-c', script], { stdio: 'ignore' });
  const messages = () => {
    try {
      return readFileSync(out, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };
  return { path, messages, stop: () => child.kill('SIGKILL') };
}

/** A process's resident memory, in MB with one decimal; with `proportional`, its pages shared with others divided among them (PSS). */
function rssMB(pid: number, proportional = false): string {
  const kb = proportional
    ? Number(/Pss:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1])
    : Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return (kb / 1024).toFixed(1);
}

/** Until `pid` has used no CPU for 300 ms: a standby done loading, waiting at its gate. */
async function settled(pid: number): Promise<void> {
  const cpu = () => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  };
  let last = -1;
  await waitFor(
    `process ${pid} to settle`,
    async () => {
      const now = cpu();
      const still = now === last;
      last = now;
      if (!still) await new Promise((resolve) => setTimeout(resolve, 300));
      return still;
    },
    30_000,
  );
}

if (containerdTestsEnabled())
  describe('the node daemon: containerd-shim-skiff-v2 serve, as skiff@.service runs it', () => {
    let env: PrivateContainerd;
    let ns: string;
    let dir: string;
    let notify: ReturnType<typeof notifySocket>;
    let daemon: ChildProcess | undefined;
    let daemonLog = '';

    const startDaemon = (more: NodeJS.ProcessEnv = {}) => {
      daemonLog = '';
      daemon = spawn(SHIM, ['-namespace', ns, '-address', env.address, '-state', env.paths.state, 'serve'], {
        stdio: ['ignore', 'ignore', 'pipe'],
        // The standby follows 300 ms after each serving process here, not after 10 s.
        env: { ...process.env, NOTIFY_SOCKET: notify.path, SKIFF_STANDBY_DELAY_MS: '300', ...more },
      });
      daemon.stderr?.on('data', (d: Buffer) => (daemonLog += d.toString()));
      return daemon;
    };
    const servers = () => groupServers(env);
    /** The standbys of this containerd's group sockets (bin/containerd-standby.js). */
    const standbys = () =>
      pids().filter((pid) => {
        const argv = argvOf(pid);
        return (
          argv.some((a) => a.endsWith('/bin/containerd-standby.js')) &&
          argAfter(argv, '--socket')?.startsWith(env.paths.dir)
        );
      });
    /** The standby, once the supervisor has told systemd of it (its STATUS line names it). */
    const standbyOf = async (server: number) => {
      await waitFor('a standby', () => standbys().length === 1, 15_000);
      const [standby] = standbys();
      await waitFor('the standby in STATUS', () =>
        notify.messages().includes(`STATUS=serving namespace ${ns} (serving process ${server}, standby ${standby})`),
      );
      return standby;
    };
    const only = async (what: string) => {
      await waitFor(what, () => servers().length === 1);
      return servers()[0].pid;
    };

    beforeAll(async () => {
      env = await startContainerd();
      ns = uniqueNamespace('daemon');
      await env.importImages(ns);
      dir = mkdtempSync(join(tmpdir(), 'skiff-daemon-'));
      notify = notifySocket(dir);
      await waitFor('the notification socket', () => spawnSync('test', ['-S', notify.path]).status === 0);
    });
    afterAll(async () => {
      daemon?.kill('SIGKILL');
      notify?.stop();
      await env?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('serves before the first container, and the container is served by it', async () => {
      const supervisor = startDaemon();
      // READY=1 once Node serves, not once it is spawned: by then it has written its pid file.
      let servingAtReady: number | undefined;
      await waitFor('READY=1', () => {
        if (!notify.messages().includes('READY=1')) return false;
        const [serving] = servers();
        servingAtReady = serving && readPidFile(pidFileOf(serving.socket));
        return true;
      });
      const server = await only('the serving process');
      expect(servingAtReady).toBe(server);
      expect(parentOf(server)).toBe(supervisor.pid);
      const said = notify.messages();
      expect(said.slice(0, 3)).toEqual([
        `STATUS=starting namespace ${ns} (serving process ${server})`,
        'READY=1',
        `STATUS=serving namespace ${ns} (serving process ${server})`,
      ]);
      // Its standby, the supervisor's child too, waits beside it: no serving process by its command line.
      const standby = await standbyOf(server);
      expect(parentOf(standby)).toBe(supervisor.pid);
      await settled(standby);
      console.log(
        `the standby waits at ${rssMB(standby)} MB RSS (PSS ${rssMB(standby, true)}) beside the serving process's ${rssMB(server)} MB (PSS ${rssMB(server, true)})`,
      );
      expect(servers().map((s) => s.pid)).toEqual([server]);

      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, 'lasting', 'sleep', '1000']);
      expect(servers().map((s) => s.pid)).toEqual([server]);
      // No linger-out: a task that comes and goes leaves the serving process up.
      await ok(env, ns, ['run', '--rm', ...SKIFF, BUSYBOX_IMAGE, 'brief', 'true']);
      expect(servers().map((s) => s.pid)).toEqual([server]);
    });

    it('hands the tasks to its standby at once after a SIGKILL, and only to it; a new standby follows', async () => {
      const before = await taskList(env, ns);
      const [killed] = servers();
      const standby = await standbyOf(killed.pid);
      await settled(standby);
      process.kill(killed.pid, 'SIGKILL');
      const crashed = Date.now();
      const exec = await env.ctr(ns, ['tasks', 'exec', '--exec-id', 'e1', 'lasting', 'echo', 'after']);
      console.log(
        `SIGKILL of the serving process to an exec answered, through its standby: ${Date.now() - crashed} ms`,
      );
      expect(exec).toMatchObject({ status: 0, stdout: 'after\n' });
      const after = await taskList(env, ns);
      expect(after.get('lasting')).toEqual(before.get('lasting'));
      // The standby is the serving process now, named so on its command line; no other was started.
      const server = await only('one serving process');
      expect(server).toBe(standby);
      expect(argvOf(server).some((a) => a.endsWith('/bin/containerd-daemon.js'))).toBe(true);
      // The supervisor's, not one a pod keeper started: its socket never refused a connection.
      expect(parentOf(server)).toBe(daemon?.pid);
      expect(daemonLog).toContain(
        `the serving process ${killed.pid} was killed by signal 9; its standby ${standby} takes its tasks over`,
      );
      expect(await standbyOf(server)).not.toBe(standby);
    });

    it('starts a new serving process after a SIGKILL when no standby waits (SKIFF_STANDBY=0)', async () => {
      const supervisor = daemon as ChildProcess;
      const exited = new Promise<number | null>((resolve) => supervisor.once('exit', resolve));
      supervisor.kill('SIGTERM');
      expect(await exited).toBe(0);
      await waitFor('its standby to go', () => standbys().length === 0);
      startDaemon({ SKIFF_STANDBY: '0' });
      const [killed] = [await only('the serving process')];
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(standbys()).toEqual([]);
      process.kill(killed, 'SIGKILL');
      const crashed = Date.now();
      const exec = await env.ctr(ns, ['tasks', 'exec', '--exec-id', 'e1b', 'lasting', 'echo', 'after']);
      console.log(`SIGKILL of the serving process to an exec answered, without a standby: ${Date.now() - crashed} ms`);
      expect(exec).toMatchObject({ status: 0, stdout: 'after\n' });
      const server = await only('one serving process');
      expect(server).not.toBe(killed);
      expect(parentOf(server)).toBe(daemon?.pid);
      expect(daemonLog).toContain(`the serving process ${killed} was killed by signal 9; starting a new one`);
      expect(standbys()).toEqual([]);
      // The unit as the other cases have it.
      const stopped = new Promise<number | null>((resolve) => (daemon as ChildProcess).once('exit', resolve));
      (daemon as ChildProcess).kill('SIGTERM');
      expect(await stopped).toBe(0);
      startDaemon();
      await standbyOf(await only('the unit serving again'));
      // Serving, its pid file written (as the next case's `skiff containerd restart` reads it).
      expect(await env.ctr(ns, ['tasks', 'exec', '--exec-id', 'e1c', 'lasting', 'true'])).toMatchObject({ status: 0 });
    });

    it('follows the successor of skiff containerd restart instead of starting one, with a new standby', async () => {
      const [old] = servers();
      const oldStandby = await standbyOf(old.pid);
      const restart = spawnSync(
        process.execPath,
        [join(ROOT, 'bin/run.js'), 'containerd', 'restart', '--state', env.paths.state, '--namespace', ns],
        { encoding: 'utf8', timeout: 60_000 },
      );
      expect(restart.stderr).toBe('');
      expect(restart.status).toBe(0);
      expect(restart.stdout).toContain(`serving process ${old.pid} handed over to`);
      await waitFor('the hand-over noticed', () => daemonLog.includes(`the serving process ${old.pid} handed over to`));
      const server = await only('one serving process');
      expect(server).not.toBe(old.pid);
      expect(parentOf(server)).toBe(daemon?.pid);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(servers().map((s) => s.pid)).toEqual([server]);
      expect(notify.messages()).toContain(`STATUS=serving namespace ${ns} (serving process ${server})`);
      expect((await taskList(env, ns)).get('lasting')?.status).toBe('RUNNING');
      // The old standby ran the package the old serving process ran: let go, and a new one follows.
      await waitFor('the old standby to go', () => !processRuns(oldStandby));
      expect(await standbyOf(server)).not.toBe(oldStandby);
    });

    it('stops without ending a container: the pod keepers serve on, and a new unit takes the tasks back', async () => {
      const supervisor = daemon as ChildProcess;
      const [served] = servers();
      const standby = await standbyOf(served.pid);
      const exited = new Promise<number | null>((resolve) => supervisor.once('exit', resolve));
      supervisor.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(processRuns(served.pid)).toBe(false);
      await waitFor('its standby to go', () => !processRuns(standby));
      expect(notify.messages()).toContain('STOPPING=1');
      expect((await taskList(env, ns)).get('lasting')?.status).toBe('RUNNING');
      // The next call finds the socket refusing: the keeper starts a serving process, as with no unit.
      expect(await env.ctr(ns, ['tasks', 'exec', '--exec-id', 'e2', 'lasting', 'echo', 'kept'])).toMatchObject({
        status: 0,
        stdout: 'kept\n',
      });
      const keepers = await only('the keeper-started serving process');
      expect(parentOf(keepers)).not.toBe(supervisor.pid);
      // One line in containerd's log says so.
      expect(readFileSync(env.paths.log, 'utf8')).toContain(
        `no serving process answered on ${served.socket}: started one (pid ${keepers})`,
      );

      // Started again, the unit asks that one to release its tasks and serves them itself.
      const next = startDaemon();
      await waitFor('the taken-over serving process to go', () => !processRuns(keepers), 30_000);
      const server = await only('the unit serving again');
      expect(parentOf(server)).toBe(next.pid);
      expect(daemonLog).toContain(`the serving process ${keepers} was not started by this unit`);
      expect(await env.ctr(ns, ['tasks', 'exec', '--exec-id', 'e3', 'lasting', 'echo', 'back'])).toMatchObject({
        status: 0,
        stdout: 'back\n',
      });
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', 'lasting']);
      await waitFor('lasting to stop', async () => (await taskList(env, ns)).get('lasting')?.status === 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', 'lasting']);
      await ok(env, ns, ['containers', 'rm', 'lasting']);
    });
  });
