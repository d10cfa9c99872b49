import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skiff } from '../support/cli';
import { nativeFixture, RuntimeFixture } from '../support/runtimes';
import { SKIFF_BIN, socketAccepts } from '../support/shim-process';
import { waitFor } from '../../support/wait-for';

// Each test runs the built CLI several times: on a loaded 2-core machine that takes a while.
jest.setTimeout(90_000);

/** `skiff shim serve` with `args`, in an environment of its own; resolves once `socket` accepts. */
async function serve(args: string[], env: NodeJS.ProcessEnv, socket: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [SKIFF_BIN, 'shim', 'serve', ...args], {
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
  await waitFor(`a shim on ${socket}`, async () => existsSync(socket) && (await socketAccepts(socket)));
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

describe('the shim address: --address, else $SKIFF_ADDRESS, else the default socket', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-address-'));
  // XDG_RUNTIME_DIR of their own: the default socket is <dir>/runtime/skiff/shim.sock.
  const env = { XDG_RUNTIME_DIR: join(dir, 'runtime'), SKIFF_ADDRESS: '' };
  const defaultSocket = join(dir, 'runtime', 'skiff', 'shim.sock');
  let fx: RuntimeFixture;
  beforeAll(() => (fx = nativeFixture()));
  afterAll(() => {
    fx.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('`skiff shim serve` and `skiff task` meet on the default socket, state in state/ beside it', async () => {
    const shim = await serve([], env, defaultSocket);
    try {
      const created = await skiff(['task', 'create', '--id', 'd1', '--bundle', fx.bundle(['true'])], { env });
      expect(created.code).toBe(0);
      expect(existsSync(join(dir, 'runtime', 'skiff', 'state'))).toBe(true);
      const state = await skiff(['task', 'state', '--id', 'd1', '--json'], { env });
      expect(JSON.parse(state.stdout)).toMatchObject({ id: 'd1', status: 'CREATED' });
      expect((await skiff(['task', 'delete', '--id', 'd1'], { env })).code).toBe(0);
    } finally {
      await stop(shim);
    }
  });

  it('$SKIFF_ADDRESS names the socket for both, and --address wins over it', async () => {
    const socket = join(dir, 'elsewhere', 'shim.sock');
    const withVariable = { ...env, SKIFF_ADDRESS: socket };
    const shim = await serve([], withVariable, socket);
    try {
      expect(
        (await skiff(['task', 'create', '--id', 'v1', '--bundle', fx.bundle(['true'])], { env: withVariable })).code,
      ).toBe(0);
      const other = join(dir, 'nobody.sock');
      const overridden = await skiff(['task', 'state', '--id', 'v1', '--address', other], { env: withVariable });
      expect(overridden.code).toBe(5);
      expect(overridden.stderr).toContain(`cannot reach the shim at ${other}`);
      expect((await skiff(['task', 'delete', '--id', 'v1'], { env: withVariable })).code).toBe(0);
    } finally {
      await stop(shim);
    }
  });

  it('refuses a runtime directory others may write in (its sockets and FIFOs could be swapped for theirs)', async () => {
    const shared = join(dir, 'shared');
    mkdirSync(join(shared, 'skiff'), { recursive: true });
    chmodSync(join(shared, 'skiff'), 0o777);
    const sharedEnv = { XDG_RUNTIME_DIR: shared, SKIFF_ADDRESS: '' };
    const expected = `${join(shared, 'skiff')} is not a private directory of yours (others may write in it (mode 777))`;
    for (const args of [
      ['task', 'state', '--id', 'x'],
      ['task', 'ls'],
      ['run', '--bundle', fx.bundle(['true'])],
      ['shim', 'serve'],
    ]) {
      const result = await skiff(args, { env: sharedEnv });
      expect(result.code).toBe(3);
      expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining(expected)]);
    }
  });

  it('without a shim, the default socket is named in the error', async () => {
    const result = await skiff(['task', 'state', '--id', 'x'], { env });
    expect(result.code).toBe(5);
    expect(result.stderr).toContain(`cannot reach the shim at ${defaultSocket}: there is no socket there`);
  });
});
