import { ProcessExit } from '../../../src/domain/shim/exit-status';
import { watchExit } from '../../../src/adapters/shim/helpers/exit-watch';
import { nativeAddon } from '../../../src/adapters/shim/helpers/native-addon';
import { readProcStat } from '../../../src/adapters/shim/helpers/proc-fs';
import { Reaper } from '../../../src/adapters/shim/helpers/reaper';
import { runProgram } from '../../../src/adapters/shim/helpers/run-program';

/** An orphan: `sh` starts `sleep` in the background and exits, so the sleep is re-parented here. */
async function orphan(seconds: number): Promise<number> {
  const result = await runProgram('sh', ['-c', `sleep ${seconds} >/dev/null 2>&1 & echo $!`]);
  return Number(result.stdout.trim());
}

/** Blocks (no event loop turn, so no watch or SIGCHLD handler runs) until `pid` is a zombie. */
function untilZombie(pid: number): void {
  const deadline = Date.now() + 5000;
  while (readProcStat(pid)?.state !== 'Z') {
    if (Date.now() > deadline) throw new Error(`pid ${pid} did not exit`);
  }
}

describe('Reaper (the subreaper that reaps orphans no watch knows)', () => {
  const reaper = Reaper.shared();

  // SIGCHLD never reaches a listener inside jest's sandbox: these tests call sweep() as the
  // listener would; test/e2e/shim/runc.test.ts has a shim reap a container's orphan on its own.
  it('reaps an orphan re-parented here once it has exited', async () => {
    const pid = await orphan(0);
    expect(readProcStat(pid)?.ppid).toBe(process.pid);
    untilZombie(pid);
    reaper.sweep();
    expect(readProcStat(pid)).toBeUndefined();
  });

  it('leaves a watched zombie to its watch and still reaps the orphan behind it', async () => {
    // The watched child comes first among this process's children, so waitid names it first.
    const watched = nativeAddon().spawn('/bin/sh', ['sh', '-c', 'sleep 0.2; exit 5'], null, '/', []);
    const exited = new Promise<ProcessExit>((resolve) => watchExit(watched, resolve));
    const stray = await orphan(0.05);
    untilZombie(stray);
    untilZombie(watched);
    reaper.sweep();
    expect(readProcStat(stray)).toBeUndefined();
    expect(readProcStat(watched)?.state).toBe('Z');
    expect(await exited).toEqual({ code: 5, signal: null });
  });

  it('holds the sweep off while a process is being adopted, then reaps what exited meanwhile', async () => {
    let stray = 0;
    await reaper.adopting(async () => {
      stray = await orphan(0);
      untilZombie(stray);
      reaper.sweep();
      expect(readProcStat(stray)?.state).toBe('Z');
    });
    expect(readProcStat(stray)).toBeUndefined();
  });
});
