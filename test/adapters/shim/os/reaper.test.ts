import { join } from 'node:path';
import { DIST, ownProcess } from '../../../support/own-process';

// Each case runs in a Node process of its own, against the built modules: the reaper makes
// its process a child subreaper for good, and SIGCHLD never reaches a listener inside
// jest's sandbox.
const HELPERS = join(DIST, 'adapters/shim/os');

const PRELUDE = `
  const helpers = ${JSON.stringify(HELPERS)};
  const { Reaper } = require(helpers + '/reaper');
  const { watchExit } = require(helpers + '/exit-watch');
  const { nativeAddon } = require(helpers + '/native-addon');
  const { readProcStat } = require(helpers + '/proc-fs');
  const { runProgram } = require(helpers + '/run-program');
  const reaper = Reaper.shared();
  // An orphan: sh starts a sleep in the background and exits, so the sleep is re-parented here.
  const orphan = async (seconds) =>
    Number((await runProgram('sh', ['-c', 'sleep ' + seconds + ' >/dev/null 2>&1 & echo $!'])).stdout.trim());
  // Blocks (no event loop turn: no watch or SIGCHLD listener runs) until pid is a zombie.
  const untilZombie = (pid) => {
    const deadline = Date.now() + 5000;
    while (readProcStat(pid)?.state !== 'Z') if (Date.now() > deadline) throw new Error(pid + ' did not exit');
  };
  const until = async (check) => {
    const deadline = Date.now() + 5000;
    while (!check()) {
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return true;
  };
  const state = (pid) => readProcStat(pid)?.state ?? 'gone';
`;

const inOwnProcess = ownProcess(PRELUDE);

describe('Reaper (the subreaper that reaps orphans no watch knows)', () => {
  it('reaps an orphan re-parented here once it exits, on its SIGCHLD', () => {
    const result = inOwnProcess(`
      const pid = await orphan(0.05);
      const adopted = readProcStat(pid)?.ppid === process.pid;
      return { adopted, reaped: await until(() => state(pid) === 'gone') };
    `);
    expect(result).toEqual({ adopted: true, reaped: true });
  });

  it('leaves a watched zombie to its watch and still reaps the orphan behind it', () => {
    const result = inOwnProcess(`
      // The watched child comes first among this process's children, so waitid names it first.
      const watched = nativeAddon().spawn('/bin/sh', ['sh', '-c', 'sleep 0.2; exit 5'], null, '/', []);
      const exited = new Promise((resolve) => watchExit(watched, resolve));
      const stray = await orphan(0.05);
      untilZombie(stray);
      untilZombie(watched);
      reaper.sweep();
      return { stray: state(stray), watched: state(watched), exit: await exited };
    `);
    expect(result).toEqual({ stray: 'gone', watched: 'Z', exit: { code: 5, signal: null } });
  });

  it('holds the sweep off while a process is being adopted, then reaps what exited meanwhile', () => {
    const result = inOwnProcess(`
      let stray = 0;
      let during = '';
      await reaper.adopting(async () => {
        stray = await orphan(0);
        untilZombie(stray);
        reaper.sweep();
        during = state(stray);
      });
      return { during, after: state(stray) };
    `);
    expect(result).toEqual({ during: 'Z', after: 'gone' });
  });
});
