import { spawn } from 'node:child_process';
import {
  BUSYBOX_IMAGE,
  containerdTestsEnabled,
  PrivateContainerd,
  startContainerd,
  uniqueNamespace,
} from '../../support/containerd';
import { ok, taskList, waitForStatus } from './support';
import { SKIFF } from './skiff-support';

/**
 * Hostile input through containerd (docs/reliability.md, "Hostile input"): what containerd's
 * runc shim does with it is what skiff, behind its pod keeper, is held to.
 */
const RUNC = ['--runtime', 'io.containerd.runc.v2'];

/**
 * `ctr task exec` of `true` with 52 args of 100,000 bytes (over ttrpc's 4 MiB once in the
 * process spec). The args are made by the shell, under a stack limit that lets exec take them.
 */
function hugeExec(env: PrivateContainerd, ns: string, id: string): Promise<{ status: number | null; stderr: string }> {
  const script =
    'ulimit -s 65536 && a=$(head -c 100000 /dev/zero | tr "\\0" a) && set -- && i=0 && ' +
    'while [ $i -lt 52 ]; do set -- "$@" "$a"; i=$((i+1)); done && ' +
    `exec ctr --address ${env.address} --namespace ${ns} tasks exec --fifo-dir ${env.paths.fifoDir} --exec-id huge ${id} true "$@"`;
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', script], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stderr });
    });
  });
}

if (containerdTestsEnabled())
  describe('containerd 1.6: hostile input, skiff beside the runc shim', () => {
    let env: PrivateContainerd;
    let ns: string;
    beforeAll(async () => {
      env = await startContainerd();
      ns = uniqueNamespace('hostile');
      await env.importImages(ns);
    });
    afterAll(async () => {
      await env?.stop();
    });

    it.each([
      ['the runc shim', RUNC, 'r1'],
      ['skiff behind its pod keeper', SKIFF, 's1'],
    ])('%s: an Exec over 4 MiB is refused RESOURCE_EXHAUSTED, and the container runs on', async (_, runtime, id) => {
      await ok(env, ns, ['run', '-d', ...runtime, BUSYBOX_IMAGE, id, 'sleep', '1000']);
      const before = await waitForStatus(env, ns, id, 'RUNNING');
      const huge = await hugeExec(env, ns, id);
      expect(huge.status).not.toBe(0);
      expect(huge.stderr).toMatch(/message length \d+ exceed maximum message size of 4194304/);
      expect((await taskList(env, ns)).get(id)).toEqual(before);
      expect(
        await env.ctr(ns, ['tasks', 'exec', '--exec-id', 'after', id, 'sh', '-c', 'echo still; exit 3']),
      ).toMatchObject({ status: 3, stdout: 'still\n' });
      await ok(env, ns, ['tasks', 'kill', '-s', 'KILL', id]);
      await waitForStatus(env, ns, id, 'STOPPED');
      await ok(env, ns, ['tasks', 'rm', id]);
      await ok(env, ns, ['containers', 'rm', id]);
    });
  });
