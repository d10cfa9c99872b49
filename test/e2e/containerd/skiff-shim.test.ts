import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BUSYBOX_IMAGE,
  containerdTestsEnabled,
  PrivateContainerd,
  startContainerd,
  uniqueNamespace,
} from '../../support/containerd';
import { OOM_COMMAND, OOM_LIMIT, ok, processRuns, taskList, waitForStatus } from './support';
import { ctrOnTerminal, forwardedTopics, groupServers, mountedAt, SKIFF } from './skiff-support';
import { waitFor } from '../../support/wait-for';
import { isUnifiedCgroupHost } from '../../../src/adapters/shim/outbound/process-runtime/runc/cgroup-v2-metrics';

/**
 * containerd 1.6 running containers through skiff (io.containerd.skiff.v2), driven by ctr
 * as a user would: the same commands the runc baseline suite runs through containerd's own
 * shim, plus what only a shared serving process has to answer for (docs/containerd.md).
 */
const GROUP = 'io.containerd.runc.v2.group';

if (containerdTestsEnabled())
  describe('containerd 1.6 with the skiff shim, through ctr', () => {
    let env: PrivateContainerd;
    let ns: string;
    let n = 0;
    const nextId = () => `s${n++}`;
    const bundle = (id: string) => join(env.paths.bundles, ns, id);

    beforeAll(async () => {
      // debug: containerd logs every event it takes ("event forwarded ... topic=...").
      env = await startContainerd({ logLevel: 'debug' });
      ns = uniqueNamespace('skiff');
      await env.importImages(ns);
    });
    afterAll(async () => {
      await env?.stop();
    });

    it('ctr run --rm passes every byte of the output and the exit status through, then removes the container', async () => {
      const id = nextId();
      const result = await env.ctr(ns, [
        'run',
        '--rm',
        ...SKIFF,
        BUSYBOX_IMAGE,
        id,
        'sh',
        '-c',
        'seq 1 200000; echo oops >&2; exit 7',
      ]);
      const expected = Array.from({ length: 200000 }, (_, i) => `${i + 1}\n`).join('');
      expect({ status: result.status, timedOut: result.timedOut }).toEqual({ status: 7, timedOut: false });
      expect(createHash('sha256').update(result.stdout).digest('hex')).toBe(
        createHash('sha256').update(expected).digest('hex'),
      );
      expect(result.stderr).toContain('oops');
      expect((await ok(env, ns, ['containers', 'ls', '-q'])).stdout.split('\n')).not.toContain(id);
      expect((await taskList(env, ns)).has(id)).toBe(false);
      expect(existsSync(bundle(id))).toBe(false);
    });

    it('a detached container: ls, ps, exec (a second exec id is refused), pause, resume, metrics, SIGKILL is 137, rm', async () => {
      const id = nextId();
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, id, 'sleep', '1000']);
      const { pid } = await waitForStatus(env, ns, id, 'RUNNING');
      expect(processRuns(pid)).toBe(true);
      // The snapshotter's overlay, mounted by skiff where runc looks for it.
      expect(mountedAt(join(bundle(id), 'rootfs'))).toBe('overlay');

      expect(await env.ctr(ns, ['tasks', 'exec', '--exec-id', 'e1', id, 'sh', '-c', 'echo in; exit 3'])).toMatchObject({
        status: 3,
        stdout: 'in\n',
      });
      await ok(env, ns, ['tasks', 'exec', '-d', '--exec-id', 'e2', id, 'sleep', '100']);
      const again = await env.ctr(ns, ['tasks', 'exec', '-d', '--exec-id', 'e2', id, 'sleep', '100']);
      expect(again.status).toBe(1);
      expect(again.stderr).toContain('already exists');
      const ps = (await ok(env, ns, ['tasks', 'ps', id])).stdout;
      expect(ps).toContain(`${pid}    -`);
      expect(ps).toContain('ExecID:e2');

      await ok(env, ns, ['tasks', 'pause', id]);
      expect((await taskList(env, ns)).get(id)?.status).toBe('PAUSED');
      await ok(env, ns, ['tasks', 'resume', id]);
      expect((await taskList(env, ns)).get(id)?.status).toBe('RUNNING');
      const metrics = (await ok(env, ns, ['tasks', 'metrics', id])).stdout;
      expect(metrics).toMatch(/pids\.current\s+2\b/);
      // As containerd's runc shim: cgroup v2 Metrics on a unified host, v1 Metrics otherwise.
      if (isUnifiedCgroupHost()) {
        expect(metrics).toMatch(/memory\.usage\s+[1-9]/);
        expect(metrics).toMatch(/cpu\.usage_usec\s+[1-9]/);
      } else expect(metrics).toMatch(/memory\.usage_in_bytes\s+[1-9]/);

      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', id]);
      await waitForStatus(env, ns, id, 'STOPPED');
      expect((await ok(env, ns, ['tasks', 'rm', id])).stderr).toContain('exit code 137');
      await ok(env, ns, ['containers', 'rm', id]);
      expect((await taskList(env, ns)).has(id)).toBe(false);
      expect(processRuns(pid)).toBe(false);
      expect(existsSync(bundle(id))).toBe(false);

      const topics = forwardedTopics(env, ns);
      for (const topic of ['create', 'start', 'exec-added', 'exec-started', 'paused', 'resumed', 'exit', 'delete'])
        expect(topics).toContain(`/tasks/${topic}`);
    });

    it('an out-of-memory kill is reported as /tasks/oom and exit 137', async () => {
      const id = nextId();
      const result = await env.ctr(ns, ['run', '--rm', ...SKIFF, ...OOM_LIMIT, BUSYBOX_IMAGE, id, ...OOM_COMMAND]);
      expect(result).toMatchObject({ status: 137, timedOut: false });
      await waitFor('containerd to forward /tasks/oom', () => forwardedTopics(env, ns).includes('/tasks/oom'));
    });

    it('a foreground ctr run exits 137 when its task is SIGKILLed', async () => {
      const id = nextId();
      const running = env.ctr(ns, ['run', '--rm', ...SKIFF, BUSYBOX_IMAGE, id, 'sleep', '1000']);
      await waitForStatus(env, ns, id, 'RUNNING');
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', id]);
      expect(await running).toMatchObject({ status: 137, timedOut: false });
    });

    it('ctr run -t and ctr task exec -t run on a terminal', async () => {
      const id = nextId();
      const run = await ctrOnTerminal(env, ns, [
        'run',
        '-t',
        '--rm',
        ...SKIFF,
        BUSYBOX_IMAGE,
        id,
        'sh',
        '-c',
        'tty; exit 4',
      ]);
      expect(run).toMatchObject({ status: 4 });
      expect(run.output).toMatch(/\/dev\/pts\/\d+/);

      const detached = nextId();
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, detached, 'sleep', '1000']);
      const exec = await ctrOnTerminal(env, ns, [
        'tasks',
        'exec',
        '-t',
        '--exec-id',
        't1',
        detached,
        'sh',
        '-c',
        'tty',
      ]);
      expect(exec).toMatchObject({ status: 0 });
      expect(exec.output).toMatch(/\/dev\/pts\/\d+/);
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', detached]);
      await waitForStatus(env, ns, detached, 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', detached]);
      await ok(env, ns, ['containers', 'rm', detached]);
    });

    it('containers outlive a containerd crash; an exit while it was down is reported with its real status', async () => {
      const ending = nextId();
      const lasting = nextId();
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, ending, 'sh', '-c', 'sleep 1; exit 5']);
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, lasting, 'sleep', '1000']);
      const before = await waitForStatus(env, ns, lasting, 'RUNNING');
      const exitsBefore = forwardedTopics(env, ns).filter((t) => t === '/tasks/exit').length;

      await env.restart({ signal: 'SIGKILL' });
      await waitForStatus(env, ns, ending, 'STOPPED');
      expect((await taskList(env, ns)).get(lasting)).toEqual(before);
      // The exit that happened while containerd was down reaches it once, after the restart.
      await waitFor(
        'containerd to forward the missed /tasks/exit',
        () => forwardedTopics(env, ns).filter((t) => t === '/tasks/exit').length > exitsBefore,
      );
      expect((await ok(env, ns, ['tasks', 'rm', ending])).stderr).toContain('exit code 5');
      expect(await env.ctr(ns, ['tasks', 'exec', '--exec-id', 'after', lasting, 'echo', 'again'])).toMatchObject({
        status: 0,
        stdout: 'again\n',
      });

      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', lasting]);
      await waitForStatus(env, ns, lasting, 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', lasting]);
      await ok(env, ns, ['containers', 'rm', ending, lasting]);
    });

    it("the serving process keeps logging to containerd after its first container is gone (through a served task's log FIFO)", async () => {
      const group = `${GROUP}=log-${process.pid}`;
      const [first, second] = [nextId(), nextId()];
      const others = new Set(groupServers(env).map((s) => s.pid));
      await ok(env, ns, ['run', '-d', ...SKIFF, '--annotation', group, BUSYBOX_IMAGE, first, 'sleep', '1000']);
      await ok(env, ns, ['run', '-d', ...SKIFF, '--annotation', group, BUSYBOX_IMAGE, second, 'sleep', '1000']);
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', first]);
      await waitForStatus(env, ns, first, 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', first]);
      await ok(env, ns, ['containers', 'rm', first]);
      // The group's own serving process, behind its pod keeper (the group is the pod).
      const server = groupServers(env).find((s) => !others.has(s.pid));
      expect(server).toBeDefined();
      const pidsLogged = () => readFileSync(env.paths.log, 'utf8').split(`skiff[${server?.pid}]: Pids `).length - 1;
      const before = pidsLogged();
      await ok(env, ns, ['tasks', 'ps', second]);
      // -debug (containerd at log level debug) logs every call with its time.
      await waitFor('the Pids call in the log', () => pidsLogged() > before);
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', second]);
      await waitForStatus(env, ns, second, 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', second]);
      await ok(env, ns, ['containers', 'rm', second]);
    });
  });

/**
 * Without pod keepers (SKIFF_KEEPER=0 in containerd's environment) containerd dials the
 * group's serving process itself, which is then the failure domain of its group
 * (docs/failure-domains.md).
 */
if (containerdTestsEnabled())
  describe('containerd 1.6 with the skiff shim without pod keepers (SKIFF_KEEPER=0)', () => {
    let env: PrivateContainerd;
    let ns: string;
    let n = 0;
    const nextId = () => `w${n++}`;
    const bundle = (id: string) => join(env.paths.bundles, ns, id);

    beforeAll(async () => {
      env = await startContainerd({ env: { SKIFF_KEEPER: '0' } });
      ns = uniqueNamespace('skiff');
      await env.importImages(ns);
    });
    afterAll(async () => {
      await env?.stop();
    });

    it('one serving process per group; when it is killed containerd cleans up its containers, and only those', async () => {
      const [a, b, other] = [nextId(), nextId(), nextId()];
      await ok(env, ns, ['run', '-d', ...SKIFF, '--annotation', `${GROUP}=g1`, BUSYBOX_IMAGE, a, 'sleep', '1000']);
      await ok(env, ns, ['run', '-d', ...SKIFF, '--annotation', `${GROUP}=g1`, BUSYBOX_IMAGE, b, 'sleep', '1000']);
      await ok(env, ns, ['run', '-d', ...SKIFF, BUSYBOX_IMAGE, other, 'sleep', '1000']);
      const address = (id: string) => readFileSync(join(bundle(id), 'address'), 'utf8');
      expect(address(a)).toBe(address(b));
      expect(address(other)).not.toBe(address(a));
      const pids = await Promise.all(
        [a, b, other].map(async (id) => (await waitForStatus(env, ns, id, 'RUNNING')).pid),
      );

      const g1 = groupServers(env).find((s) => s.socket === address(a).replace('unix://', ''));
      expect(g1).toBeDefined();
      process.kill(g1?.pid as number, 'SIGKILL');

      // containerd's `delete` of the shim binary for each of them: killed, unmounted, gone from ctr.
      await waitFor(
        `${a} and ${b} gone from ctr`,
        async () => !(await taskList(env, ns)).has(a) && !(await taskList(env, ns)).has(b),
      );
      // containerd lists a task no longer once its clean-up starts, a few ms before `delete` killed it.
      await waitFor(`the processes of ${a} and ${b} to end`, () => pids.slice(0, 2).every((pid) => !processRuns(pid)));
      await waitFor(`the rootfs of ${a} and ${b} unmounted`, () =>
        [a, b].every((id) => mountedAt(join(bundle(id), 'rootfs')) === undefined),
      );
      await ok(env, ns, ['containers', 'rm', a, b]);
      // The other group's container never noticed.
      expect((await taskList(env, ns)).get(other)?.status).toBe('RUNNING');
      expect(await env.ctr(ns, ['tasks', 'exec', '--exec-id', 'x', other, 'echo', 'fine'])).toMatchObject({
        status: 0,
        stdout: 'fine\n',
      });
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', other]);
      await waitForStatus(env, ns, other, 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', other]);
      await ok(env, ns, ['containers', 'rm', other]);
    });
  });
