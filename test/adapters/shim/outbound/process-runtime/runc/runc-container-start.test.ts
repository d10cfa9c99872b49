import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RuncCli } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/runc-cli';
import { RuncContainer } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/runc-container';
import { PodKeepers } from '../../../../../../src/adapters/shim/outbound/keeper/pod-keepers';
import { KeptLauncher } from '../../../../../../src/adapters/shim/outbound/keeper/kept-launcher';
import { StartOutcome } from '../../../../../../src/adapters/shim/outbound/keeper/keeper-control';
import { FailedPreconditionError } from '../../../../../../src/domain/shared/errors';

/**
 * What RuncContainer.start makes of each answer of its pod keeper's `S` (docs/runtimes.md, "Start
 * without a runc process"). Its runc is `false`: a Start that ran it fails with "runc start failed".
 */
describe('RuncContainer.start behind a pod keeper', () => {
  const root = mkdtempSync(join(tmpdir(), 'skiff-start-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  function container(answer: StartOutcome, error = '', libcontainer = true) {
    const id = `c${Math.random().toString(36).slice(2, 8)}`;
    mkdirSync(join(root, id));
    if (libcontainer) writeFileSync(join(root, id, 'state.json'), '{}');
    const asked: string[] = [];
    const keepers = {
      start: async (_pod: string, key: string, fifo: string) => {
        asked.push(`${key} ${fifo}`);
        return { outcome: answer, error };
      },
    } as unknown as PodKeepers;
    const cli = new RuncCli('/bin/false', root);
    const made = new RuncContainer(id, root, root, true, cli, new KeptLauncher(keepers, '/pod.sock'));
    return { made, asked, fifo: join(root, id, 'exec.fifo') };
  }

  it('started: done, no runc process', async () => {
    const { made, asked, fifo } = container('started');
    await made.start(false);
    expect(asked).toEqual([`${made.id} ${fifo}`]);
  });

  it("dead: runc's own answer, FAILED_PRECONDITION", async () => {
    const { made } = container('dead');
    const err = await made.start(false).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FailedPreconditionError);
    expect((err as Error).message).toBe(`task "${made.id}": runc start failed: container process is already dead`);
  });

  it("failed: the keeper's reason, FAILED_PRECONDITION, and no runc start racing its reader", async () => {
    const { made } = container('failed', 'a start of the key is in progress');
    const err = await made.start(false).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FailedPreconditionError);
    expect((err as Error).message).toBe(
      `task "${made.id}": its pod keeper could not start it: a start of the key is in progress`,
    );
  });

  it("absent (no fifo), poststart hooks, or a container libcontainer did not make: runc's own start", async () => {
    const cases = [
      { ...container('absent'), hooks: false, asks: 1 },
      { ...container('started'), hooks: true, asks: 0 },
      { ...container('started', '', false), hooks: false, asks: 0 },
    ];
    for (const { made, asked, hooks, asks } of cases) {
      await expect(made.start(hooks)).rejects.toThrow(/runc start failed/);
      expect(asked).toHaveLength(asks);
    }
  });
});
