import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skiff } from '../support/cli';
import { nativeFixture, RuntimeFixture } from '../support/runtimes';
import { SKIFF_BIN, waitFor } from '../support/shim-process';

const EXAMPLES = join(__dirname, '../../../examples');

function leftovers(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith('skiff-shim-') || name.startsWith('skiff-run-'));
}

describe('skiff run', () => {
  let fx: RuntimeFixture;
  beforeAll(() => (fx = nativeFixture()));
  afterAll(() => fx.cleanup());

  it('runs the example bundle with its output on the terminal, leaving nothing behind', async () => {
    const before = leftovers().length;
    const result = await skiff(['run', '--bundle', join(EXAMPLES, 'hello')]);
    expect(result.stdout).toMatch(/^hello from skiff: pid \d+/);
    expect(result.stderr).toBe('this line goes to stderr\n');
    expect(result.code).toBe(0);
    expect(leftovers().length).toBe(before);
  });

  it("exits with the task's exit status", async () => {
    const result = await skiff(['run', '--bundle', fx.bundle(['sh', '-c', 'exit 3'])]);
    expect(result.code).toBe(3);
  });

  it('feeds its stdin to the task', async () => {
    const result = await skiff(['run', '--bundle', fx.bundle(['sh', '-c', 'tr a-z A-Z'])], { input: 'shout\n' });
    expect(result).toMatchObject({ code: 0, stdout: 'SHOUT\n' });
  });

  it('forwards SIGTERM to the task and exits 143', async () => {
    const child = spawn(
      process.execPath,
      [SKIFF_BIN, 'run', '--bundle', fx.bundle(['sh', '-c', 'echo started; exec sleep 100'])],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => out.includes('started'), 'the task to start');
    child.kill('SIGTERM');
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(143);
  });

  it('runs on a terminal with --tty, following the window size', async () => {
    const pty = require('node-pty') as typeof import('node-pty');
    const term = pty.spawn(
      process.execPath,
      [SKIFF_BIN, 'run', '--tty', '--bundle', fx.bundle(['sh', '-c', 'stty size; read line; echo got:$line'])],
      { cols: 100, rows: 30, env: process.env as Record<string, string> },
    );
    let out = '';
    term.onData((d) => (out += d));
    await waitFor(() => out.includes('30 100'), 'the task to see the window size');
    term.write('typed\r');
    const exit = await new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
    expect(exit).toBe(0);
    expect(out).toContain('got:typed');
  });

  it('reports a bundle it cannot run as a usage error, in one line', async () => {
    const result = await skiff(['run', '--bundle', '/no/such/bundle']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
