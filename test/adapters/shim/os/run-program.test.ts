import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isWatched } from '../../../../src/adapters/shim/os/exit-watch';
import { runCommand } from '../../../../src/adapters/shim/os/run-command';
import { runProgram } from '../../../../src/adapters/shim/os/run-program';
import { DIST, ownProcess } from '../../../support/own-process';

/** The built module, in a Node process of its own. */
const inOwnProcess = ownProcess(
  `const { runProgram } = require(${JSON.stringify(join(DIST, 'adapters/shim/os/run-program.js'))});`,
);

describe('runProgram (how the shim starts runc, mount and criu)', () => {
  it('captures stdout and stderr apart and reports the exit code', async () => {
    const result = await runProgram('sh', ['-c', 'echo out; echo err >&2; exit 3']);
    expect(result).toEqual({ code: 3, signal: null, stdout: 'out\n', stderr: 'err\n' });
  });

  it('feeds `input` to stdin (runc update --resources -)', async () => {
    const result = await runProgram('/bin/cat', [], { input: '{"pids":{"limit":5}}' });
    expect(result.stdout).toBe('{"pids":{"limit":5}}');
  });

  it('reports a signal as the signal, not a code', async () => {
    const result = await runProgram('sh', ['-c', 'kill -TERM $$']);
    expect(result).toMatchObject({ code: null, signal: 15 });
  });

  it("hands on the shim's environment as process.env has it at the call", () => {
    // In a Node process of its own: jest gives each test file a copy of process.env, where a
    // shim's process.env writes through to the process's environment.
    const seen = inOwnProcess(`
      process.env.SKIFF_RUN_PROGRAM_TEST = 'set';
      const set = (await runProgram('sh', ['-c', 'echo "$SKIFF_RUN_PROGRAM_TEST"'])).stdout;
      delete process.env.SKIFF_RUN_PROGRAM_TEST;
      const unset = (await runProgram('sh', ['-c', 'echo "\${SKIFF_RUN_PROGRAM_TEST-unset}"'])).stdout;
      return set + unset;
    `);
    expect(seen).toBe('set\nunset\n');
  });

  it('hands given descriptors to the program as its stdio, with nothing captured', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-run-program-'));
    const file = join(dir, 'out');
    const fd = openSync(file, 'w');
    try {
      const result = await runProgram('sh', ['-c', 'echo to-the-file; echo also >&2'], { stdio: ['ignore', fd, fd] });
      expect(result.stdout).toBe('');
      expect(readFileSync(file, 'utf8')).toBe('to-the-file\nalso\n');
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('watches the pid while the program runs, so a subreaper sweep leaves its exit alone', async () => {
    const running = runProgram('sh', ['-c', 'echo $$; sleep 0.2']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8')
      .trim()
      .split(' ')
      .map(Number);
    const watchedWhileRunning = children.filter(isWatched);
    const pid = Number((await running).stdout.trim());
    expect(watchedWhileRunning).toContain(pid);
    expect(isWatched(pid)).toBe(false); // the watch ends with the exit
  });

  it('rejects with ENOENT for a program that is not there; runCommand makes that code 127 with a message', async () => {
    await expect(runProgram('skiff-no-such-program', [])).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(runProgram('/nonexistent/prog', [])).rejects.toMatchObject({ code: 'ENOENT' });
    const result = await runCommand('skiff-no-such-program', []);
    expect(result.code).toBe(127);
    expect(result.stderr).toContain('skiff-no-such-program');
  });
});
