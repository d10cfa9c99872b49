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
import { parentOf } from '../../support/procs';

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

if (containerdTestsEnabled())
  describe('the node daemon: containerd-shim-skiff-v2 serve, as skiff@.service runs it', () => {
    let env: PrivateContainerd;
    let ns: string;
    let dir: string;
    let notify: ReturnType<typeof notifySocket>;
    let daemon: ChildProcess | undefined;
    let daemonLog = '';

    const startDaemon = () => {
      daemonLog = '';
      daemon = spawn(SHIM, ['-namespace', ns, '-address', env.address, '-state', env.paths.state, 'serve'], {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, NOTIFY_SOCKET: notify.path },
      });
      daemon.stderr?.on('data', (d: Buffer) => (daemonLog += d.toString()));
      return daemon;
    };
    const servers = () => groupServers(env);
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
      await waitFor('READY=1', () => notify.messages().includes('READY=1'));
      const server = await only('the serving process');
      expect(parentOf(server)).toBe(supervisor.pid);
      expect(notify.messages()).toContain(`STATUS=serving namespace ${ns} (serving process ${server})`);

      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, 'lasting', 'sleep', '1000']);
      expect(servers().map((s) => s.pid)).toEqual([server]);
      // No linger-out: a task that comes and goes leaves the serving process up.
      await ok(env, ns, ['run', '--rm', ...SKIFF, BUSYBOX_IMAGE, 'brief', 'true']);
      expect(servers().map((s) => s.pid)).toEqual([server]);
    });

    it('starts a new serving process at once after a SIGKILL, and only that one', async () => {
      const before = await taskList(env, ns);
      const [killed] = servers();
      process.kill(killed.pid, 'SIGKILL');
      await waitFor('a new serving process', () => servers().some((s) => s.pid !== killed.pid));
      const after = await taskList(env, ns);
      expect(after.get('lasting')).toEqual(before.get('lasting'));
      const server = await only('one serving process');
      // The supervisor's, not one a pod keeper started: its socket never refused a connection.
      expect(parentOf(server)).toBe(daemon?.pid);
      expect(daemonLog).toContain(`the serving process ${killed.pid} was killed by signal 9`);
      expect(await env.ctr(ns, ['tasks', 'exec', '--exec-id', 'e1', 'lasting', 'echo', 'after'])).toMatchObject({
        status: 0,
        stdout: 'after\n',
      });
    });

    it('follows the successor of skiff containerd restart instead of starting one', async () => {
      const [old] = servers();
      const restart = spawnSync(
        process.execPath,
        [join(ROOT, 'bin/run.js'), 'containerd', 'restart', '--state', env.paths.state, '--namespace', ns],
        { encoding: 'utf8', timeout: 60_000 },
      );
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
    });

    it('stops without ending a container: the pod keepers serve on, and a new unit takes the tasks back', async () => {
      const supervisor = daemon as ChildProcess;
      const [served] = servers();
      const exited = new Promise<number | null>((resolve) => supervisor.once('exit', resolve));
      supervisor.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(processRuns(served.pid)).toBe(false);
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
