import { join } from 'node:path';
import { DIST, ownProcess } from '../../../support/own-process';

// spawnNoWait (native/addon/launch.c) starts a child that shares this process's memory until it
// execs, and is not waited for. Each case runs in a Node process of its own, against the
// built addon: the child's exit is watched with a pidfd on that process's own loop.
const HELPERS = join(DIST, 'adapters/shim/os');

const PRELUDE = `
  const fs = require('node:fs');
  const { nativeAddon } = require(${JSON.stringify(HELPERS)} + '/native-addon');
  const { watchExit } = require(${JSON.stringify(HELPERS)} + '/exit-watch');
  const addon = nativeAddon();
  /** Runs argv with stdout and stderr on one pipe (stdin /dev/null): its output and exit. */
  const run = async (file, argv, { env = ['PATH=/usr/bin:/bin'], cwd = '/' } = {}) => {
    const [read, write] = addon.pipe();
    const pid = addon.spawnNoWait(file, argv, env, cwd, [-1, write, write]);
    fs.closeSync(write);
    const exit = await new Promise((resolve) => watchExit(pid, resolve));
    const out = fs.readFileSync(read, 'utf8');
    fs.closeSync(read);
    return { pid, out, exit };
  };
`;

interface Run {
  pid: number;
  out: string;
  exit: { code: number | null; signal: number | null };
}

const inOwnProcess = ownProcess(PRELUDE);

describe('spawnNoWait (a child started without waiting for its exec)', () => {
  it('places the descriptors, the working directory and the environment, in a session of its own', () => {
    const result = inOwnProcess<Run>(`
      const script = 'echo "$$ $(cut -d" " -f6 /proc/$$/stat) $(pwd) $GREETING"; echo to-stderr >&2; cat; exit 3';
      return run('/bin/sh', ['sh', '-c', script], { env: ['PATH=/usr/bin:/bin', 'GREETING=hi'], cwd: '/tmp' });
    `);
    const [first, second] = result.out.split('\n');
    const [shellPid, session, cwd, greeting] = first.split(' ');
    expect(Number(shellPid)).toBe(result.pid);
    expect(Number(session)).toBe(result.pid);
    expect([cwd, greeting, second]).toEqual(['/tmp', 'hi', 'to-stderr']);
    expect(result.exit).toEqual({ code: 3, signal: null });
  });

  it('starts with no signal blocked or ignored, although Node ignores SIGPIPE', () => {
    const result = inOwnProcess<Run>(`return run('/bin/grep', ['grep', '-E', '^Sig(Blk|Ign)', '/proc/self/status']);`);
    expect(result.out).toBe('SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n');
  });

  it('reports an exec that fails on its stderr and exits 127', () => {
    const result = inOwnProcess<Run>(`return run('/nonexistent/program', ['program']);`);
    expect(result.out).toBe('skiff: cannot start /nonexistent/program: exec failed (errno 2)\n');
    expect(result.exit).toEqual({ code: 127, signal: null });
  });

  it("unmaps each child's memory once it has exec'd or exited", () => {
    const held = inOwnProcess<number>(`
      // Half exec, half fail at the exec and exit: both end the child's use of its block.
      for (let i = 0; i < 200; i++) await run(i % 2 === 0 ? '/bin/true' : '/nonexistent', ['x']);
      return addon.launchesHeld();
    `);
    expect(held).toBe(0);
  });
});
