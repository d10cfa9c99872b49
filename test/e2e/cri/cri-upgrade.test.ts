import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { containerdTestsEnabled } from '../../support/containerd';
import { ContainerStatusResponse, ListedContainer } from '../../support/cri';
import { containerPid, CriEnv, expectTickingOn, processRuns, readCriLog, startCriEnv, waitForState } from './support';
import { groupServers } from '../containerd/skiff-support';
import { waitFor } from '../../support/wait-for';

/**
 * A restart of skiff's serving process under running pods (docs/upgrade.md), as the kubelet sees
 * it: `skiff containerd restart` while a pod's containers run and the CRI plugin holds a Wait on
 * each; one exits during the hand-over. The pod stays READY, its containers keep their pids and
 * their log, the exit is reported with its status, exec works.
 */
const ROOT = join(__dirname, '../../..');

function restartCommand(state: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [
    join(ROOT, 'bin/run.js'),
    'containerd',
    'restart',
    '--state',
    state,
    '--namespace',
    'k8s.io',
  ]);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

if (containerdTestsEnabled())
  describe('skiff containerd restart under CRI pods behind pod keepers', () => {
    let ctx: CriEnv;

    beforeAll(async () => {
      ctx = await startCriEnv();
    });
    afterAll(async () => {
      await ctx?.close();
    });

    it('hands the pods over: READY, RUNNING with the same pids, an exit meanwhile reported with its status, logs with no gap', async () => {
      const pod = await ctx.startPod('skiff', { name: 'handed-over' }, [
        { name: 'ticker', command: ['sh', '-c', 'i=0; while true; do echo tick $i; i=$((i+1)); sleep 0.05; done'] },
        { name: 'waiter', command: ['sh', '-c', 'while [ ! -e /go ]; do sleep 0.05; done; echo going; exit 5'] },
      ]);
      const [ticker, waiter] = pod.containerIds;
      const tickerPid = await containerPid(ctx.cri, ticker);
      const waiterPid = await containerPid(ctx.cri, waiter);
      const tickerLog = join(ctx.logDir, 'handed-over', 'ticker_0.log');
      await waitFor('the ticker to log', () => readCriLog(tickerLog).length > 0);
      // Three in a row: the CRI plugin's Wait on each container outlives them all (docs/upgrade.md, step 0).
      for (let round = 0; round < 3; round++) {
        const [old] = groupServers(ctx.env);
        const restarting = restartCommand(ctx.env.paths.state);
        // The waiter exits about when the second hand-over runs (the command takes a few hundred ms to start).
        if (round === 1) setTimeout(() => writeFileSync(`/proc/${waiterPid}/root/go`, ''), 300);
        const restart = await restarting;
        console.log(`under CRI: ${restart.stdout.trim()}`);
        expect(restart).toMatchObject({ status: 0, stderr: '' });
        expect(restart.stdout).toMatch(new RegExp(`^namespace k8s.io: serving process ${old.pid} handed over to \\d+`));
        expect(groupServers(ctx.env).map((s) => s.pid)).not.toContain(old.pid);
      }

      const { items } = await ctx.cri.runtime<{ items: Array<{ id: string; state: string }> }>('ListPodSandbox', {});
      expect(items.find((p) => p.id === pod.podSandboxId)?.state).toBe('SANDBOX_READY');
      const { containers } = await ctx.cri.runtime<{ containers: ListedContainer[] }>('ListContainers', {
        filter: { podSandboxId: pod.podSandboxId },
      });
      expect(containers.map((c) => c.id).sort()).toEqual([ticker, waiter].sort());
      expect(
        (await ctx.cri.runtime<ContainerStatusResponse>('ContainerStatus', { containerId: ticker })).status.state,
      ).toBe('CONTAINER_RUNNING');
      expect(await containerPid(ctx.cri, ticker)).toBe(tickerPid);
      const { status } = await waitForState(ctx.cri, waiter, 'CONTAINER_EXITED');
      expect(status).toMatchObject({ exitCode: 5, reason: 'Error' });

      await expectTickingOn(ctx.cri, ticker, tickerLog);

      await ctx.cri.runtime('StopPodSandbox', { podSandboxId: pod.podSandboxId });
      expect(processRuns(tickerPid)).toBe(false);
      await ctx.cri.runtime('RemovePodSandbox', { podSandboxId: pod.podSandboxId });
    });
  });
