import { spawn } from 'node:child_process';
import { readProcStat } from '../../../../../../src/adapters/shim/os/proc-fs';
import {
  isSameLiveProcess,
  UNKNOWN_EXIT,
  watchAdoptedExit,
} from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/adopted-exit';
import { ProcessExit } from '../../../../../../src/domain/shim/exit-status';

/** A process that is not a child of the watcher's, as a container is after a restart: here the test's own child. */
describe('taking over a process another serving process made', () => {
  const self = readProcStat(process.pid);

  it('knows it by its pid and start time: a reused pid (another start time) is not it', () => {
    expect(self).toBeDefined();
    expect(isSameLiveProcess(process.pid, self?.startTicks ?? -1)).toBe(true);
    expect(isSameLiveProcess(process.pid, (self?.startTicks ?? 0) + 1)).toBe(false);
    expect(isSameLiveProcess(2 ** 22 + 7, 1)).toBe(false);
  });

  it('reports a process whose start time does not match as exited, status unknown, without waiting for it', async () => {
    const exit = await new Promise<ProcessExit>((resolve) =>
      watchAdoptedExit(process.pid, (self?.startTicks ?? 0) + 1, resolve),
    );
    expect(exit).toEqual(UNKNOWN_EXIT);
  });

  it('learns the exit of a live process through its pidfd', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    const pid = child.pid as number;
    const startTime = readProcStat(pid)?.startTicks as number;
    const exited = new Promise<ProcessExit>((resolve) => watchAdoptedExit(pid, startTime, resolve));
    child.kill('SIGKILL');
    // Here it is the test's own child: the watch reaps it (the real status) unless libuv did first (unknown).
    expect([UNKNOWN_EXIT, { code: null, signal: 9 }]).toContainEqual(await exited);
  });
});
