import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { skiff } from '../support/cli';
import { nativeFixture, RuntimeFixture } from '../support/runtimes';
import { RunningShim, startShim } from '../support/shim-process';

// Each test runs the built CLI several times: on a loaded 2-core machine that takes a while.
jest.setTimeout(90_000);

describe('skiff task <verb> against a running shim', () => {
  let shim: RunningShim;
  let fx: RuntimeFixture;
  const task = (verb: string, ...args: string[]) => skiff(['task', verb, '--address', shim.socket, ...args]);

  beforeAll(async () => {
    fx = nativeFixture();
    shim = await startShim();
  });
  afterAll(async () => {
    await shim.stop();
    fx.cleanup();
  });

  it('drives a whole lifecycle, with --json replies in proto field names', async () => {
    const out = join(shim.dir, 'cli.out');
    const created = await task(
      'create',
      '--id',
      'c1',
      '--bundle',
      fx.bundle(['sh', '-c', 'echo hi; exit 9']),
      '--stdout',
      out,
      '--json',
    );
    expect(created.code).toBe(0);
    const { pid } = JSON.parse(created.stdout) as { pid: number };
    expect(pid).toBeGreaterThan(0);

    const state = JSON.parse((await task('state', '--id', 'c1', '--json')).stdout);
    expect(state).toMatchObject({ id: 'c1', exec_id: '', pid, status: 'CREATED', stdout: out, exit_status: 0 });
    expect(state.exited_at).toBeUndefined();

    expect((await task('start', '--id', 'c1')).stdout.trim()).toBe(String(pid));
    const waited = JSON.parse((await task('wait', '--id', 'c1', '--json')).stdout);
    expect(waited.exit_status).toBe(9);
    expect(new Date(waited.exited_at).getTime()).toBeGreaterThan(0);

    const human = await task('state', '--id', 'c1');
    expect(human.stdout).toContain('STOPPED');
    const deleted = JSON.parse((await task('delete', '--id', 'c1', '--json')).stdout);
    expect(deleted).toEqual({ pid, exit_status: 9, exited_at: waited.exited_at });
  });

  it('execs with arguments after --, kills by signal name, lists pids and stats', async () => {
    await task('create', '--id', 'c2', '--bundle', fx.bundle(['sleep', '100']));
    await task('start', '--id', 'c2');
    expect((await task('exec', '--id', 'c2', '--exec-id', 'e1', '--', 'sleep', '100')).code).toBe(0);
    const execPid = (await task('start', '--id', 'c2', '--exec-id', 'e1')).stdout.trim();
    const pids = JSON.parse((await task('pids', '--id', 'c2', '--json')).stdout);
    expect(pids.processes).toContainEqual({ pid: Number(execPid), exec_id: 'e1' });
    const stats = JSON.parse((await task('stats', '--id', 'c2', '--json')).stdout);
    expect(stats).toMatchObject({ runtime: 'native', pids_current: 2 });
    expect((await task('kill', '--id', 'c2', '--signal', 'KILL', '--all')).code).toBe(0);
    expect(JSON.parse((await task('wait', '--id', 'c2', '--json')).stdout).exit_status).toBe(137);
    await task('delete', '--id', 'c2');
  });

  it('pauses, resumes, connects, updates and shuts down (kept alive while a task is left)', async () => {
    await task('create', '--id', 'c3', '--bundle', fx.bundle(['sleep', '100']));
    await task('start', '--id', 'c3');
    expect((await task('pause', '--id', 'c3')).code).toBe(0);
    expect(JSON.parse((await task('state', '--id', 'c3', '--json')).stdout).status).toBe('PAUSED');
    expect((await task('resume', '--id', 'c3')).code).toBe(0);
    expect((await task('update', '--id', 'c3', '--resources', '{"cpu":{"shares":2048}}')).code).toBe(0);
    const connect = JSON.parse((await task('connect', '--id', 'c3', '--json')).stdout);
    expect(connect.shim_pid).toBe(shim.child.pid);
    expect((await task('shutdown')).code).toBe(0);
    expect((await task('state', '--id', 'c3')).code).toBe(0); // still serving
    await task('kill', '--id', 'c3', '--signal', '9');
    await task('wait', '--id', 'c3');
    await task('delete', '--id', 'c3');
  });

  it('resolves --stdout, --stderr and --stdin against the current directory, as --bundle', async () => {
    const dir = mkdtempSync(join(shim.dir, 'cwd-'));
    writeFileSync(join(dir, 'in.txt'), 'from a relative stdin\n');
    const bundle = fx.bundle(['sh', '-c', 'cat; echo to-stderr >&2']);
    const created = await skiff(
      [
        'task',
        'create',
        '--address',
        shim.socket,
        '--id',
        'rel',
        '--bundle',
        bundle,
        '--stdin',
        'in.txt',
        '--stdout',
        'out.log',
        '--stderr',
        'err.log',
      ],
      { cwd: dir },
    );
    expect(created.code).toBe(0);
    await task('start', '--id', 'rel');
    await task('wait', '--id', 'rel');
    expect(JSON.parse((await task('state', '--id', 'rel', '--json')).stdout).stdout).toBe(join(dir, 'out.log'));
    await task('delete', '--id', 'rel');
    expect(readFileSync(join(dir, 'out.log'), 'utf8')).toBe('from a relative stdin\n');
    expect(readFileSync(join(dir, 'err.log'), 'utf8')).toBe('to-stderr\n');
  });

  it('maps the shim status codes to exit codes once, one line each (README, "Exit codes")', async () => {
    const notFound = await task('state', '--id', 'ghost');
    expect(notFound.code).toBe(2);
    expect(notFound.stderr.trim()).toBe('skiff: task "ghost" not found');

    const badBundle = await task('create', '--id', 'c4', '--bundle', '/no/such/bundle');
    expect(badBundle.code).toBe(2);
    expect(badBundle.stderr).toContain('/no/such/bundle');

    await task('create', '--id', 'c5', '--bundle', fx.bundle(['sleep', '100']));
    await task('start', '--id', 'c5');
    const exists = await task('create', '--id', 'c5', '--bundle', fx.bundle(['true']));
    expect(exists.code).toBe(2);
    expect(exists.stderr).toMatch(/already exists/);
    const running = await task('delete', '--id', 'c5');
    expect(running.code).toBe(2);
    expect(running.stderr).toMatch(/running state/);
    const unimplemented = await task('checkpoint', '--id', 'c5', '--path', join(shim.dir, 'cp'));
    expect(unimplemented.code).toBe(3);
    expect(unimplemented.stderr).toMatch(/--runtime runc/);
    await task('kill', '--id', 'c5', '--signal', 'KILL');
    await task('wait', '--id', 'c5');
    await task('delete', '--id', 'c5');

    const usage = await task('kill', '--id', 'x', '--signal', 'NOPE');
    expect(usage.code).toBe(2);
    const missingFlag = await task('state');
    expect(missingFlag.code).toBe(2);
    expect(missingFlag.stderr).toMatch(/missing required flag --id/);

    const json = await task('state', '--id', 'ghost', '--json');
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout).error).toMatchObject({ kind: 'NotFound', exitCode: 2 });
    for (const r of [notFound, badBundle, exists, running, unimplemented, usage]) {
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it("says why a shim cannot be reached, without grpc-js's internals", async () => {
    const missing = join(shim.dir, 'nobody.sock');
    const unreachable = await skiff(['task', 'state', '--address', missing, '--id', 'x']);
    expect(unreachable.code).toBe(5);
    expect(unreachable.stderr.trim()).toBe(
      `skiff: cannot reach the shim at ${missing}: there is no socket there; start one with ` +
        `\`skiff shim serve --address ${missing}\`, or point --address or SKIFF_ADDRESS at a running one`,
    );
    const notSocket = await skiff(['task', 'state', '--address', fx.bundle(['true']), '--id', 'x']);
    expect(notSocket.code).toBe(5);
    expect(notSocket.stderr).toMatch(/is not a socket/);
    for (const r of [unreachable, notSocket]) expect(r.stderr).not.toMatch(/Resolution note|Last error|No connection/);
  });

  it('shutdown: exit 0 once the shim has ended; no shim at the address is exit 5, never a silent success', async () => {
    const own = await startShim();
    const ended = await skiff(['task', 'shutdown', '--address', own.socket]);
    expect(ended).toMatchObject({ code: 0, stderr: '' });
    expect(await own.exited).toBe(0);

    const nobody = await skiff(['task', 'shutdown', '--address', own.socket]);
    expect(nobody.code).toBe(5);
    expect(nobody.stderr.trim()).toMatch(/^skiff: cannot reach the shim at .*: there is no socket there; start one/);
  });
});
