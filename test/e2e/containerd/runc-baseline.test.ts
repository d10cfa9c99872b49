import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  BUSYBOX_IMAGE,
  containerdConfig,
  containerdTestsEnabled,
  PAUSE_IMAGE,
  PrivateContainerd,
  runcShimSocket,
  startContainerd,
  sweepStaleContainerds,
  uniqueNamespace,
} from '../../support/containerd';
import { ok, processRuns, taskList, waitForStatus } from './support';
import { shellScript } from '../../support/shell-script';
import { waitFor } from '../../support/wait-for';

/**
 * The reference the skiff shim (io.containerd.skiff.v2) will be held against: what a real
 * containerd 1.6 does with its own runc shim, driven by ctr. See docs/containerd-testing.md.
 */
const RUNC = ['--runtime', 'io.containerd.runc.v2'];

describe('the private containerd config', () => {
  const dir = '/tmp/skiff-ctrd-Ab12Cd';

  it('keeps root, state and both sockets in its own directory, within the unix socket limit', () => {
    const toml = containerdConfig(dir);
    expect(toml).toContain(`root = "${dir}/root"`);
    expect(toml).toContain(`state = "${dir}/state"`);
    expect(toml).toContain(`address = "${dir}/c.sock"`);
    expect(toml).toContain(`address = "${dir}/c.sock.ttrpc"`);
    expect(toml).toContain(`path = "${dir}/root/opt"`);
    expect(Buffer.byteLength(`${dir}/c.sock.ttrpc`)).toBeLessThan(106);
  });

  it('leaves the CRI plugin out unless asked, and then offers runc and skiff with the local pause image', () => {
    expect(containerdConfig(dir)).toMatch(/disabled_plugins = \[[^\]]*"io.containerd.grpc.v1.cri"/);
    const cri = containerdConfig(dir, { cri: true });
    expect(cri).not.toMatch(/disabled_plugins = \[[^\]]*"io.containerd.grpc.v1.cri"/);
    expect(cri).toContain(`sandbox_image = "${PAUSE_IMAGE}"`);
    expect(cri).toMatch(/containerd\.runtimes\.skiff\]\n\s+runtime_type = "io\.containerd\.skiff\.v2"/);
    expect(cri).toMatch(/containerd\.runtimes\.runc\]\n\s+runtime_type = "io\.containerd\.runc\.v2"/);
    expect(cri).toContain(`conf_dir = "${dir}/cni/net.d"`);
  });
});

if (containerdTestsEnabled())
  describe('containerd 1.6 with its runc shim, through ctr', () => {
    let env: PrivateContainerd;
    let ns: string;
    let n = 0;
    const nextId = () => `c${n++}`;

    beforeAll(async () => {
      env = await startContainerd();
      ns = uniqueNamespace('baseline');
      await env.importImages(ns);
    });
    afterAll(async () => {
      await env?.stop();
    });

    it('ctr run --rm passes the output and the exit status through, then removes the container', async () => {
      const id = nextId();
      const result = await env.ctr(ns, [
        'run',
        '--rm',
        ...RUNC,
        BUSYBOX_IMAGE,
        id,
        'sh',
        '-c',
        'echo hi; echo oops >&2; exit 7',
      ]);
      expect(result).toMatchObject({ status: 7, stdout: 'hi\n', timedOut: false });
      expect(result.stderr).toContain('oops');
      expect((await ok(env, ns, ['containers', 'ls', '-q'])).stdout.split('\n')).not.toContain(id);
      expect((await ok(env, ns, ['snapshots', 'ls'])).stdout).not.toContain(id);
      expect((await taskList(env, ns)).has(id)).toBe(false);
    });

    it('a detached container: listed, exec, SIGKILL is 137, then task and container removed', async () => {
      const id = nextId();
      await ok(env, ns, ['run', '-d', ...RUNC, BUSYBOX_IMAGE, id, 'sleep', '1000']);
      const { pid } = await waitForStatus(env, ns, id, 'RUNNING');
      expect(processRuns(pid)).toBe(true);
      const bundle = join(env.paths.bundles, ns, id);
      expect(readFileSync(join(bundle, 'address'), 'utf8').trim()).toBe(
        `unix://${runcShimSocket(env.address, `${ns}/${id}`)}`,
      );

      const exec = await env.ctr(ns, ['tasks', 'exec', '--exec-id', 'e1', id, 'sh', '-c', 'echo in; exit 3']);
      expect(exec).toMatchObject({ status: 3, stdout: 'in\n' });

      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', id]);
      await waitForStatus(env, ns, id, 'STOPPED');
      const removed = await ok(env, ns, ['tasks', 'rm', id]);
      expect(removed.stderr).toContain('exit code 137');
      await ok(env, ns, ['containers', 'rm', id]);
      expect((await taskList(env, ns)).has(id)).toBe(false);
      expect(processRuns(pid)).toBe(false);
      expect(existsSync(bundle)).toBe(false);
      expect(existsSync(runcShimSocket(env.address, `${ns}/${id}`))).toBe(false);
    });

    it('a foreground ctr run exits 137 when its task is SIGKILLed', async () => {
      const id = nextId();
      const running = env.ctr(ns, ['run', '--rm', ...RUNC, BUSYBOX_IMAGE, id, 'sleep', '1000']);
      await waitForStatus(env, ns, id, 'RUNNING');
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', id]);
      expect(await running).toMatchObject({ status: 137, timedOut: false });
    });

    it('the pause image exits 0 on SIGTERM (a pid-1 sleep would ignore it)', async () => {
      const id = nextId();
      const running = env.ctr(ns, ['run', '--rm', ...RUNC, PAUSE_IMAGE, id]);
      await waitForStatus(env, ns, id, 'RUNNING');
      await ok(env, ns, ['tasks', 'kill', '-s', 'TERM', id]);
      expect(await running).toMatchObject({ status: 0, timedOut: false });
    });

    it.each(['SIGTERM', 'SIGKILL'] as const)(
      'a container outlives a containerd restart (%s) and is driven again afterwards',
      async (signal) => {
        const id = nextId();
        await ok(env, ns, ['run', '-d', ...RUNC, BUSYBOX_IMAGE, id, 'sleep', '1000']);
        const before = await waitForStatus(env, ns, id, 'RUNNING');
        const daemon = env.pid;

        await env.restart({ signal });
        expect(env.pid).not.toBe(daemon);
        expect((await taskList(env, ns)).get(id)).toEqual(before);
        // containerd's runc shim now and then loses a short exec's output under load (seen once
        // here; https://github.com/moby/moby/issues/27289): the exec runs, and a second one is read.
        const exec = (n: number) =>
          env.ctr(ns, ['tasks', 'exec', '--exec-id', `after${n}`, id, 'sh', '-c', 'echo again']);
        const first = await exec(1);
        expect(first.status).toBe(0);
        expect(first.stdout === 'again\n' ? first : await exec(2)).toMatchObject({ status: 0, stdout: 'again\n' });

        await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', id]);
        await waitForStatus(env, ns, id, 'STOPPED');
        await ok(env, ns, ['tasks', 'rm', id]);
        await ok(env, ns, ['containers', 'rm', id]);
      },
    );
  });

if (containerdTestsEnabled())
  describe('how containerd finds a shim', () => {
    it('puts the repository bin/ first on its PATH, and runs --runtime io.containerd.skiff.v2 as the containerd-shim-skiff-v2 found there', async () => {
      // A stand-in for the skiff shim: the runc shim under the skiff name, in a dir of its own.
      const shimDir = mkdtempSync(join(tmpdir(), 'skiff-shimdir-'));
      shellScript(shimDir, 'containerd-shim-skiff-v2', 'exec containerd-shim-runc-v2 "$@"');
      const defaults = await startContainerd();
      const env = await startContainerd({ shimDirs: [shimDir] });
      try {
        const path = /(?:^|\0)PATH=([^\0]*)/.exec(readFileSync(`/proc/${defaults.pid}/environ`, 'utf8'))?.[1] ?? '';
        expect(path.split(':')[0]).toBe(resolve(__dirname, '../../../bin'));

        const ns = uniqueNamespace('shimpath');
        await env.importImages(ns);
        const result = await env.ctr(ns, [
          'run',
          '--rm',
          '--runtime',
          'io.containerd.skiff.v2',
          BUSYBOX_IMAGE,
          'via-path',
          'sh',
          '-c',
          'exit 5',
        ]);
        expect(result).toMatchObject({ status: 5, timedOut: false });
        const missing = await env.ctr(ns, [
          'run',
          '--rm',
          '--runtime',
          'io.containerd.nosuch.v2',
          BUSYBOX_IMAGE,
          'none',
          'true',
        ]);
        expect(missing.stderr).toContain('binary not installed "containerd-shim-nosuch-v2"');
      } finally {
        await defaults.stop();
        await env.stop();
        rmSync(shimDir, { recursive: true, force: true });
      }
    });
  });

if (containerdTestsEnabled())
  describe('the private containerd removes what it made', () => {
    it('stop() after a crash of the daemon with a container running: no process, mount, socket, runc state or dir left', async () => {
      const env = await startContainerd();
      const ns = uniqueNamespace('teardown');
      await env.importImages(ns);
      await ok(env, ns, ['run', '-d', ...RUNC, BUSYBOX_IMAGE, 'left', 'sleep', '1000']);
      const { pid } = await waitForStatus(env, ns, 'left', 'RUNNING');
      process.kill(env.pid!, 'SIGKILL');

      await env.stop(); // rejects, naming them, if anything was left
      expect(processRuns(pid)).toBe(false);
      expect(existsSync(env.paths.dir)).toBe(false);
      expect(existsSync(runcShimSocket(env.address, `${ns}/left`))).toBe(false);
      expect(existsSync(`/run/containerd/runc/${ns}`)).toBe(false);
    });

    it('an instance whose owner was killed is removed by the next start (or an explicit sweep)', async () => {
      const ns = uniqueNamespace('stale');
      const script = `
      const { PrivateContainerd, BUSYBOX_IMAGE } = require(${JSON.stringify(require.resolve('../../../scripts/containerd/private-containerd.js'))});
      (async () => {
        const env = await PrivateContainerd.start();
        await env.importImages('${ns}');
        const run = await env.ctr('${ns}', ['run', '-d', BUSYBOX_IMAGE, 'orphan', 'sleep', '1000']);
        process.stdout.write(JSON.stringify({ dir: env.paths.dir, status: run.status }) + '\\n');
        setInterval(() => undefined, 1000);
      })();`;
      const owner = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      const line = await new Promise<string>((resolve) =>
        owner.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString())),
      );
      const { dir, status } = JSON.parse(line) as { dir: string; status: number };
      expect(status).toBe(0);
      owner.kill('SIGKILL');
      await new Promise((resolve) => owner.once('exit', resolve));
      expect(existsSync(dir)).toBe(true);

      expect(await sweepStaleContainerds()).toEqual([]);
      // Another suite's start may have claimed the instance first: its sweep removes it then.
      await waitFor(
        'the stale instance to be removed',
        () => !existsSync(dir) && !existsSync(`/run/containerd/runc/${ns}`),
        20_000,
      );
      expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(dir);
    });
  });
