import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readProcStat } from '../../../src/adapters/shim/os/proc-fs';
import { skiff } from '../support/cli';
import { nativeFixture, RuntimeFixture } from '../support/runtimes';
import { SKIFF_BIN } from '../support/shim-process';
import { waitFor } from '../../support/wait-for';

// Each test runs the built CLI several times: on a loaded 2-core machine that takes a while.
jest.setTimeout(90_000);

const EXAMPLES = join(__dirname, '../../../examples');

describe('skiff run', () => {
  let fx: RuntimeFixture;
  // A runtime directory of its own: the runs live in <it>/skiff/runs/<id>.
  const runtime = mkdtempSync(join(tmpdir(), 'skiff-run-e2e-'));
  const env = { XDG_RUNTIME_DIR: runtime, SKIFF_ADDRESS: '' };
  const runs = join(runtime, 'skiff', 'runs');
  const run = (args: string[], options: { input?: string } = {}) => skiff(['run', ...args], { ...options, env });
  const task = (...args: string[]) => skiff(['task', ...args], { env });
  const leftovers = () => (existsSync(runs) ? readdirSync(runs) : []);
  const background = (args: string[]): { child: ChildProcess; output: () => string } => {
    const child = spawn(process.execPath, [SKIFF_BIN, 'run', ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    return { child, output: () => out };
  };
  const listed = async (): Promise<Array<{ id: string; status: string; pid?: number }>> =>
    JSON.parse((await task('ls', '--json')).stdout).tasks;

  beforeAll(() => (fx = nativeFixture()));
  afterAll(() => {
    fx.cleanup();
    rmSync(runtime, { recursive: true, force: true });
  });

  it('runs the example bundle with its output on the terminal, leaving nothing behind', async () => {
    const before = leftovers();
    const result = await run(['--bundle', join(EXAMPLES, 'hello')]);
    expect(result.stdout).toMatch(/^hello from skiff: pid \d+/);
    expect(result.stderr).toBe('this line goes to stderr\n');
    expect(result.code).toBe(0);
    expect(leftovers()).toEqual(before);
  });

  it("exits with the task's exit status", async () => {
    const result = await run(['--bundle', fx.bundle(['sh', '-c', 'exit 3'])]);
    expect(result.code).toBe(3);
  });

  it('feeds its stdin to the task', async () => {
    const result = await run(['--bundle', fx.bundle(['sh', '-c', 'tr a-z A-Z'])], { input: 'shout\n' });
    expect(result).toMatchObject({ code: 0, stdout: 'SHOUT\n' });
  });

  it("sets the process's environment and working directory with --env and --cwd", async () => {
    const bundle = fx.bundle(['sh', '-c', 'echo "$GREETING $TERM"; pwd'], { env: ['GREETING=bundle'] });
    const result = await run(['--bundle', bundle, '--env', 'GREETING=hello', '-e', 'TERM=dumb', '--cwd', '/tmp']);
    expect(result).toMatchObject({ code: 0, stdout: 'hello dumb\n/tmp\n' });
    const relative = await run(['--bundle', bundle, '--cwd', 'tmp']);
    expect(relative.code).toBe(2);
    expect(relative.stderr).toMatch(/^skiff: --cwd "tmp" must be an absolute path/);
  });

  it('forwards SIGTERM to the task and exits 143', async () => {
    const { child, output } = background(['--bundle', fx.bundle(['sh', '-c', 'echo started; exec sleep 100'])]);
    await waitFor('the task to start', () => output().includes('started'));
    child.kill('SIGTERM');
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(143);
  });

  it('runs on a terminal with --tty, following the window size', async () => {
    const pty = require('node-pty') as typeof import('node-pty');
    const term = pty.spawn(
      process.execPath,
      [SKIFF_BIN, 'run', '--tty', '--bundle', fx.bundle(['sh', '-c', 'stty size; read line; echo got:$line'])],
      { cols: 100, rows: 30, env: { ...process.env, ...env } as Record<string, string> },
    );
    let out = '';
    term.onData((d) => (out += d));
    await waitFor('the task to see the window size', () => out.includes('30 100'));
    term.write('typed\r');
    const exit = await new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
    expect(exit).toBe(0);
    expect(out).toContain('got:typed');
  });

  it('says at once that --tty needs a terminal on stdin, instead of hanging on a pipe', async () => {
    const before = leftovers();
    const result = await run(['--tty', '--bundle', join(EXAMPLES, 'upper')], { input: 'hi\n' });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'skiff: --tty needs a terminal on standard input (here it is a pipe or a file); leave out --tty to pass the input through\n',
    );
    expect(leftovers()).toEqual(before);
  });

  it('reports a bundle it cannot run as a usage error, in one line naming the bundle and what to do', async () => {
    const before = leftovers();
    const result = await run(['--bundle', '/no/such/bundle']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "skiff: bundle /no/such/bundle does not exist; pass --bundle the directory that holds the task's OCI config.json\n",
    );
    expect(leftovers()).toEqual(before);
  });

  it('names the bundle, not a task id the user never chose, when the task cannot be created', async () => {
    const bundle = fx.bundle(['/no/such/program']);
    const result = await run(['--bundle', bundle]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^skiff: bundle ${bundle}: /no/such/program .*\n$`));
    expect(result.stderr).not.toMatch(/run-[0-9a-f]{8}/);
    expect((await run(['--id', 'mine', '--bundle', bundle])).stderr).toMatch(/^skiff: task "mine": /);
  });

  it('refuses an id whose run socket would not fit a unix socket path (107 bytes), in one line naming --id', async () => {
    const before = leftovers();
    const id = 'x'.repeat(76); // a valid id: the limit is the socket path's, not the id rule's
    expect(Buffer.byteLength(join(runs, id, 'shim.sock'))).toBeGreaterThan(107);
    const result = await run(['--id', id, '--bundle', fx.bundle(['true'])]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^.*--id x+ makes the run's socket path .* longer than 107 bytes; choose a shorter id\n$/,
    );
    expect(leftovers()).toEqual(before);
  });

  it('-d starts the task, prints its id and leaves it to `skiff task --id` and `skiff task ls`', async () => {
    const result = await run(['-d', '--id', 'detached', '--bundle', fx.bundle(['sleep', '100'])]);
    expect(result).toMatchObject({ code: 0, stdout: 'detached\n' });
    const [entry] = await listed();
    expect(entry).toMatchObject({ id: 'detached', status: 'RUNNING' });
    expect((await task('pids', '--id', 'detached')).stdout.trim()).toBe(String(entry.pid));

    const again = await run(['-d', '--id', 'detached', '--bundle', fx.bundle(['true'])]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/a run with id detached is live/);

    expect((await task('kill', '--id', 'detached', '--signal', 'KILL')).code).toBe(0);
    expect((await task('wait', '--id', 'detached')).stdout).toMatch(/^exit status 137/);
    expect((await task('delete', '--id', 'detached')).code).toBe(0);
    // Delete is followed by Shutdown: the run's shim exits and removes its directory.
    await waitFor('the run directory to go', () => !existsSync(join(runs, 'detached')));
    expect(await listed()).toEqual([]);
  });

  it('-d cannot be combined with --tty or --rm', async () => {
    for (const flag of ['--tty', '--rm']) {
      const result = await run(['-d', flag, '--bundle', fx.bundle(['true'])]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/cannot also be provided when using --detach/);
    }
  });

  it('killed with SIGKILL, leaves its task running where `skiff task ls` finds it and `skiff task` ends it', async () => {
    const { child, output } = background([
      '--id',
      'orphan',
      '--bundle',
      fx.bundle(['sh', '-c', 'echo up; exec sleep 100']),
    ]);
    await waitFor('the task to start', () => output().includes('up'));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const [entry] = await listed();
    expect(entry).toMatchObject({ id: 'orphan', status: 'RUNNING' });
    await task('kill', '--id', 'orphan', '--signal', 'KILL');
    await task('wait', '--id', 'orphan');
    await task('delete', '--id', 'orphan');
    await waitFor('the run directory to go', () => !existsSync(join(runs, 'orphan')));
    expect(readProcStat(entry.pid!)).toBeUndefined();
  });

  it('with --rm, killed with SIGKILL, its shim ends the task and itself and removes the run', async () => {
    const bundle = fx.bundle(['sh', '-c', 'echo up; exec sleep 100']);
    const { child, output } = background(['--rm', '--id', 'bound', '--bundle', bundle]);
    await waitFor('the task to start', () => output().includes('up'));
    const [entry] = await listed();
    const shimPid = JSON.parse((await task('connect', '--id', 'bound', '--json')).stdout).shim_pid;
    child.kill('SIGKILL');
    await waitFor('the task to end', () => readProcStat(entry.pid!) === undefined);
    await waitFor('the shim to exit', () => readProcStat(shimPid) === undefined);
    await waitFor('the run directory to go', () => !existsSync(join(runs, 'bound')));
    expect(await listed()).toEqual([]);
  });
});
