import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { NotFoundError } from '../../../src/domain/shared/errors';
import { TtrpcTaskClient } from '../../../src/adapters/shim/outbound/task-client/ttrpc-task-client';
import { forwardEvent } from '../../../src/adapters/shim/outbound/events/forward-event';
import { TtrpcClient } from '../../../src/adapters/shim/wire/ttrpc/ttrpc-client';
import { TtrpcError } from '../../../src/adapters/shim/wire/ttrpc/ttrpc-error';
import { task } from '../../../src/adapters/shim/wire/proto/generated/task/v2/shim';
import { TTRPC_TASK_SERVICE } from '../../../src/adapters/shim/wire/ttrpc/service-names';
import { mkfifo } from '../support/fifo';
import { nativeFixture } from '../support/runtimes';
import { socketAccepts, startShim } from '../support/shim-process';
import { waitFor } from '../../support/wait-for';

const RUNC_SHIM = '/usr/bin/containerd-shim-runc-v2';
const CTR = '/usr/bin/ctr';
const CONTAINERD = '/usr/bin/containerd';

/**
 * Holds skiff's ttrpc client and server to the real peers of containerd 1.6 (Debian's
 * `containerd` package): its runc shim (a Go ttrpc server), `ctr shim` (a Go ttrpc
 * client) and containerd's own events service. Left out, with one line saying why, where they are not installed or not root.
 */
function peersPresent(): boolean {
  const missing = [RUNC_SHIM, CTR, CONTAINERD].filter((p) => !existsSync(p));
  if (process.getuid?.() !== 0) missing.push('root (the runc shim listens under /run/containerd/s)');
  if (missing.length > 0)
    process.stderr.write(
      `containerd peer checks not run here: missing ${missing.join(', ')} (apt-get install containerd)\n`,
    );
  return missing.length === 0;
}

/** The shim socket containerd 1.6 derives from its address, a namespace and an id (runtime/v2/shim/util_unix.go SocketAddress). */
function shimSocket(address: string, namespace: string, id: string): string {
  return `/run/containerd/s/${createHash('sha256')
    .update(join(address, namespace, id))
    .digest('hex')}`;
}

const ghostState = () => Buffer.from(new task.v2.StateRequest({ id: 'ghost' }).serialize());

async function failure(call: Promise<unknown>): Promise<TtrpcError> {
  try {
    await call;
  } catch (err) {
    return err as TtrpcError;
  }
  throw new Error('expected the call to fail');
}

describe('the shim socket containerd derives', () => {
  it('is the one containerd-shim-runc-v2 1.6.20 printed for -address /tmp/ttrpc-real/c.sock -namespace t -id x', () => {
    expect(shimSocket('/tmp/ttrpc-real/c.sock', 't', 'x')).toBe(
      '/run/containerd/s/4b7f06dda305c007c86fbc50d2b566acc8734850dc95eec4a198291eac1e9d44',
    );
  });
});

if (peersPresent())
  describe('ttrpc against containerd 1.6 itself', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-peers-'));
    const address = join(dir, 'containerd.sock'); // no containerd listens: only the derived shim socket is used
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("skiff's client talks to containerd-shim-runc-v2 started as containerd starts it", async () => {
      const bundle = join(dir, 'bundle');
      mkdirSync(bundle);
      writeFileSync(join(bundle, 'config.json'), '{}');
      // containerd makes the log FIFO and holds its read side before `start` (runtime/v2/shim_unix.go).
      mkfifo(join(bundle, 'log'));
      const logReader = openSync(join(bundle, 'log'), constants.O_RDONLY | constants.O_NONBLOCK);
      const started = spawnSync(RUNC_SHIM, ['-namespace', 't', '-address', address, '-id', 'peer', 'start'], {
        cwd: bundle,
        env: { ...process.env, TTRPC_ADDRESS: `${address}.ttrpc` },
        encoding: 'utf8',
        timeout: 10_000,
      });
      const printed = started.stdout.trim();
      expect(printed).toBe(`unix://${shimSocket(address, 't', 'peer')}`);
      const client = new TtrpcClient(printed);
      const tasks = new TtrpcTaskClient(printed);
      let shimPid = 0;
      try {
        const connected = await tasks.connect('peer');
        shimPid = connected.shimPid;
        expect(connected).toMatchObject({ taskPid: 0 });
        await expect(tasks.state({ id: 'ghost', execId: '' })).rejects.toThrow(NotFoundError);
        expect(await failure(client.call(TTRPC_TASK_SERVICE, 'State', ghostState()))).toMatchObject({
          code: 5,
          details: 'container not created: not found',
        });
        expect(await failure(client.call(TTRPC_TASK_SERVICE, 'Attach', ghostState()))).toMatchObject({
          code: 12,
          details: 'method Attach',
        });
        expect(await failure(client.call('containerd.task.v3.Task', 'State', ghostState()))).toMatchObject({
          code: 12,
          details: 'service containerd.task.v3.Task',
        });
        // The same text skiff's server sends for the same frame (test/e2e/shim/ttrpc.test.ts).
        expect(await failure(client.call(TTRPC_TASK_SERVICE, 'State', Buffer.alloc(4 << 20)))).toMatchObject({
          code: 8,
          details: expect.stringMatching(/^message length \d+ exceed maximum message size of 4194304$/),
        });
        const calls = await Promise.all([1, 2, 3].map(() => tasks.connect('peer')));
        expect(calls.map((c) => c.shimPid)).toEqual([shimPid, shimPid, shimPid]);
        await tasks.shutdown({ id: 'peer', now: false }).catch(() => undefined); // no containers: the shim exits
        await waitFor('the runc shim to remove its socket', () => !existsSync(shimSocket(address, 't', 'peer')));
      } finally {
        client.close();
        tasks.close();
        if (shimPid > 0 && existsSync(shimSocket(address, 't', 'peer'))) {
          try {
            process.kill(shimPid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
        rmSync(shimSocket(address, 't', 'peer'), { force: true });
        closeSync(logReader);
      }
    });

    it("containerd's `ctr shim` (a Go ttrpc client) drives skiff's ttrpc server", async () => {
      const fx = nativeFixture();
      const socket = shimSocket(address, 't', 'skiff');
      const shim = await startShim('native', [], undefined, undefined, 'ttrpc');
      // `ctr shim --id skiff` dials the socket derived from the address: point it at this shim.
      mkdirSync(dirname(socket), { recursive: true, mode: 0o700 });
      symlinkSync(shim.socket, socket);
      const ctr = (...args: string[]) =>
        spawnSync(CTR, ['--address', address, '-n', 't', 'shim', '--id', 'skiff', ...args], {
          encoding: 'utf8',
          timeout: 10_000,
        });
      try {
        expect(ctr('state').stderr).toContain('ctr: rpc error: code = NotFound desc = task "skiff" not found');
        const tasks = new TtrpcTaskClient(socket);
        await tasks.create({
          id: 'skiff',
          bundle: fx.bundle(['sh', '-c', 'sleep 0.3; exit 7']),
          rootfs: [],
          terminal: false,
          stdin: '',
          stdout: '',
          stderr: '',
          checkpoint: '',
          parentCheckpoint: '',
        });
        expect(ctr('start', 'skiff').status).toBe(0);
        expect(JSON.parse(ctr('state').stdout)).toMatchObject({ id: 'skiff', status: 2 });
        expect((await tasks.wait({ id: 'skiff', execId: '' })).exitStatus).toBe(7);
        expect(JSON.parse(ctr('state').stdout)).toMatchObject({ status: 3, exit_status: 7 });
        expect(ctr('delete', 'skiff').stdout).toContain('container deleted and returned exit status 7');
        expect(ctr('delete', 'skiff').stderr).toContain('code = NotFound');
        tasks.close();
      } finally {
        await shim.stop();
        rmSync(socket, { force: true });
        fx.cleanup();
      }
    });

    it("containerd takes an event Forward from skiff's client, as from its own shims", async () => {
      const root = join(dir, 'containerd');
      mkdirSync(root);
      const grpc = join(root, 'c.sock');
      writeFileSync(
        join(root, 'config.toml'),
        [
          'version = 2',
          `root = "${root}/root"`,
          `state = "${root}/state"`,
          'disabled_plugins = ["io.containerd.grpc.v1.cri"]',
          '[grpc]',
          `  address = "${grpc}"`,
          '[ttrpc]',
          `  address = "${grpc}.ttrpc"`,
        ].join('\n'),
      );
      const daemon = spawn(CONTAINERD, ['--config', join(root, 'config.toml')], { stdio: 'ignore' });
      let events: ReturnType<typeof spawn> | undefined;
      let client: TtrpcClient | undefined;
      try {
        await waitFor('containerd to serve', () => socketAccepts(`${grpc}.ttrpc`));
        client = new TtrpcClient(`${grpc}.ttrpc`);
        events = spawn(CTR, ['--address', grpc, 'events'], { stdio: ['ignore', 'pipe', 'ignore'] });
        let seen = '';
        events.stdout?.on('data', (d: Buffer) => (seen += d.toString()));
        await new Promise((r) => setTimeout(r, 200)); // ctr events subscribes before the event goes out
        // containerd.events.TaskExit {container_id "c1", id "c1", pid 42, exit_status 7}
        const exit = Buffer.from([0x0a, 2, 0x63, 0x31, 0x12, 2, 0x63, 0x31, 0x18, 42, 0x20, 7]);
        const envelope = {
          timestamp: new Date(),
          namespace: 'skiff-test',
          topic: '/tasks/exit',
          event: { typeUrl: 'containerd.events.TaskExit', value: exit },
        };
        await forwardEvent(client, envelope);
        await waitFor('ctr events to show the event', () => seen.includes('/tasks/exit'));
        expect(seen).toContain('skiff-test /tasks/exit {"container_id":"c1","id":"c1","pid":42,"exit_status":7');
        const refused = await failure(forwardEvent(client, { ...envelope, topic: 'tasks/exit' }));
        expect(refused).toMatchObject({ code: 3, details: expect.stringContaining("must start with '/'") });
      } finally {
        client?.close();
        events?.kill();
        daemon.kill();
        await new Promise((r) => daemon.once('exit', r));
      }
    });
  });
