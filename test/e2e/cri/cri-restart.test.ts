import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { containerdTestsEnabled } from '../../support/containerd';
import { ContainerStatusResponse, ListedContainer, nsToMs } from '../../support/cri';
import {
  containerPid,
  expectTickingOn,
  CRI_HANDLERS,
  CriEnv,
  criReady,
  processRuns,
  readCriLog,
  sleep,
  startCriEnv,
  waitForState,
} from './support';
import { waitFor } from '../../support/wait-for';

/**
 * containerd stopped (cleanly, or killed as in a crash) and started again while pods run:
 * the containers keep running, CRI knows them all afterwards, an exit that happened while
 * containerd was down is reported with its real status, and logs keep flowing.
 */
if (containerdTestsEnabled())
  describe.each(CRI_HANDLERS)('containerd restarts under pods of the %s runtime handler', (handler) => {
    let ctx: CriEnv;

    beforeAll(async () => {
      ctx = await startCriEnv();
    });
    afterAll(async () => {
      await ctx?.close();
    });

    it.each(['SIGTERM', 'SIGKILL'] as const)('after a %s to containerd', async (signal) => {
      const name = `restart-${signal.toLowerCase()}`;
      const pod = await ctx.startPod(handler, { name }, [
        { name: 'ticker', command: ['sh', '-c', 'i=0; while true; do echo tick $i; i=$((i+1)); sleep 0.05; done'] },
        { name: 'waiter', command: ['sh', '-c', 'while [ ! -e /go ]; do sleep 0.05; done; echo going; exit 5'] },
      ]);
      const [ticker, waiter] = pod.containerIds;
      const tickerPid = await containerPid(ctx.cri, ticker);
      const waiterPid = await containerPid(ctx.cri, waiter);
      const tickerLog = join(ctx.logDir, name, 'ticker_0.log');
      await waitFor('the ticker to log', () => readCriLog(tickerLog).length > 0);

      const daemon = ctx.env.pid as number;
      process.kill(daemon, signal);
      await waitFor('containerd to be down', () => !processRuns(daemon));
      const down = Date.now();
      writeFileSync(`/proc/${waiterPid}/root/go`, '');
      await waitFor('the waiter to exit while containerd is down', () => !processRuns(waiterPid));
      await sleep(200);
      const up = Date.now();
      await ctx.env.restart();
      await criReady(ctx.cri);

      const { containers } = await ctx.cri.runtime<{ containers: ListedContainer[] }>('ListContainers', {
        filter: { podSandboxId: pod.podSandboxId },
      });
      expect(containers.map((c) => c.id).sort()).toEqual([ticker, waiter].sort());
      expect(processRuns(tickerPid)).toBe(true);
      expect(
        (await ctx.cri.runtime<ContainerStatusResponse>('ContainerStatus', { containerId: ticker })).status.state,
      ).toBe('CONTAINER_RUNNING');
      expect(await containerPid(ctx.cri, ticker)).toBe(tickerPid);
      const { status } = await waitForState(ctx.cri, waiter, 'CONTAINER_EXITED');
      expect(status).toMatchObject({ exitCode: 5, reason: 'Error' });
      expect(nsToMs(status.finishedAt)).toBeGreaterThanOrEqual(down - 5);
      expect(nsToMs(status.finishedAt)).toBeLessThanOrEqual(up + 5);
      // What it printed after containerd went down is not checked: with no reader left on its
      // FIFO once the container is gone, containerd's runc shim loses it too (docs/cri.md).

      await expectTickingOn(ctx.cri, ticker, tickerLog);

      await ctx.cri.runtime('StopPodSandbox', { podSandboxId: pod.podSandboxId });
      expect(processRuns(tickerPid)).toBe(false);
      await ctx.cri.runtime('RemovePodSandbox', { podSandboxId: pod.podSandboxId });
    });
  });
