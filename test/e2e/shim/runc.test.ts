import { status as Code } from '@grpc/grpc-js';
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { readProcStat } from '../../../src/adapters/shim/os/proc-fs';
import { skiff } from '../../../src/adapters/shim/wire/proto/generated/skiff/v1/skiff';
import { types } from '../../../src/adapters/shim/wire/proto/generated/types/mount';
import { v1 } from '../../../src/adapters/shim/wire/proto/generated/v1/types/task';
import { RuncBundleFactory, RuncBundleOptions, runcTestsEnabled } from '../../support/runc-bundles';
import { mkfifo, readFifoInAnotherProcess } from '../support/fifo';
import { RunningShim, SKIFF_BIN, startShim } from '../support/shim-process';
import { waitFor } from '../../support/wait-for';
import { errorOf } from '../support/task-client';
import { InvalidArgumentError } from '../../../src/domain/shared/errors';
import { GrpcTaskClientFactory } from '../../../src/adapters/shim/outbound/task-client/grpc-task-client';

const Status = v1.types.Status;
const PATH_ENV = 'PATH=/usr/bin:/bin';

describe('skiff shim serve --runtime runc without what it needs', () => {
  it('refuses to start with one clear line: root first, then the runc package', () => {
    const dir = require('node:fs').mkdtempSync(join(require('node:os').tmpdir(), 'skiff-norunc-'));
    const result = spawnSync(
      process.execPath,
      [
        SKIFF_BIN,
        'shim',
        'serve',
        '--runtime',
        'runc',
        '--address',
        join(dir, 's.sock'),
        '--state-dir',
        join(dir, 'state'),
      ],
      {
        encoding: 'utf8',
        env: { ...process.env, PATH: '/nonexistent' },
      },
    );
    require('node:fs').rmSync(dir, { recursive: true, force: true });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(process.getuid?.() === 0 ? 'apt-get install runc' : 'needs root');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});

/** What only real containers do: namespaces, cgroups, the freezer, rootfs mounts, criu (as root: see runcTestsEnabled). */
if (runcTestsEnabled())
  describe('the runc runtime end to end', () => {
    let shim: RunningShim;
    let bundles: RuncBundleFactory;
    let n = 0;
    const nextId = () => `runc-${n++}`;

    beforeAll(async () => {
      bundles = new RuncBundleFactory();
      shim = await startShim('runc');
    });
    afterAll(async () => {
      const left = runcList(shim);
      // Every task was deleted: its directory (pid files, exec files) went with it.
      const taskDirs = readdirSync(join(shim.stateDir, 'tasks'));
      await shim.stop();
      bundles.cleanup();
      expect(left).toEqual([]);
      expect(taskDirs).toEqual([]);
    });

    function bundle(args: string[], options: RuncBundleOptions = {}): string {
      return bundles.make(args, options);
    }

    async function run(
      args: string[],
      options: RuncBundleOptions = {},
    ): Promise<{ id: string; pid: number; out: string }> {
      const id = nextId();
      const out = join(shim.dir, `${id}.out`);
      const { pid } = await shim.client.create({ id, bundle: bundle(args, options), stdout: out, stderr: out });
      await shim.client.start(id);
      return { id, pid, out };
    }

    async function end(id: string): Promise<number> {
      await shim.client.kill(id, 9).catch(() => undefined);
      const { exit_status } = await shim.client.wait(id);
      await shim.client.delete(id);
      return exit_status;
    }

    it('runs the init as pid 1 of its own pid namespace, with a host pid in Create', async () => {
      const { id, pid, out } = await run(['sh', '-c', 'echo "pid=$$"; ps -o pid= | tr -s " \\n" " "'], {
        pidNamespace: true,
      });
      expect((await shim.client.wait(id)).exit_status).toBe(0);
      await shim.client.delete(id);
      expect(pid).toBeGreaterThan(1);
      const lines = readFileSync(out, 'utf8').split('\n');
      expect(lines[0]).toBe('pid=1');
      // Only the namespace's own processes are visible (sh, ps and, if already forked, tr):
      // small pids, 1 among them; a host process would show its host pid.
      const visible = lines[1].trim().split(' ').map(Number);
      expect(visible).toContain(1);
      expect(Math.max(...visible)).toBeLessThan(10);
    });

    it('gives the container its own hostname and root filesystem', async () => {
      const script =
        'hostname; test -x /bin/busybox && echo busybox-root; test -e ' +
        shim.dir +
        ' && echo host-visible || echo host-hidden';
      const { id, out } = await run(['sh', '-c', script], { hostname: 'box-one' });
      expect((await shim.client.wait(id)).exit_status).toBe(0);
      await shim.client.delete(id);
      expect(readFileSync(out, 'utf8')).toBe('box-one\nbusybox-root\nhost-hidden\n');
    });

    it('reports kill -9 of the init from outside the shim as 137', async () => {
      const { id, pid } = await run(['sleep', '1000'], { pidNamespace: true });
      process.kill(pid, 'SIGKILL');
      const waited = await shim.client.wait(id);
      expect(waited.exit_status).toBe(137);
      expect((await shim.client.state(id)).status).toBe(Status.STOPPED);
      await shim.client.delete(id);
    });

    it('keeps the kernel rule for a namespace init: SIGTERM without a handler is ignored, SIGKILL is not', async () => {
      const { id } = await run(['sleep', '1000'], { pidNamespace: true });
      await shim.client.kill(id, 15);
      await new Promise((r) => setTimeout(r, 300));
      expect((await shim.client.state(id)).status).toBe(Status.RUNNING);
      expect(await end(id)).toBe(137);
    });

    it('ends the execs with the init of a pid namespace, each exit reported once', async () => {
      const { id } = await run(['sleep', '1000'], { pidNamespace: true });
      await shim.client.exec(id, 'e1', { args: ['sleep', '1000'], env: [PATH_ENV], cwd: '/' });
      const { pid: execPid } = await shim.client.start(id, 'e1');
      expect(execPid).toBeGreaterThan(1);
      await shim.client.kill(id, 9);
      expect((await shim.client.wait(id, 'e1')).exit_status).toBe(137);
      expect((await shim.client.wait(id)).exit_status).toBe(137);
      await shim.client.delete(id, 'e1');
      await shim.client.delete(id);
    });

    it("opens an exec's stdio at Start, not at Exec: until then the shim holds no writer of the client's FIFO", async () => {
      const { id } = await run(['sleep', '1000'], { pidNamespace: true });
      const out = join(shim.dir, `${id}.exec.out`);
      mkfifo(out);
      const reader = openSync(out, constants.O_RDONLY | constants.O_NONBLOCK);
      /** What a read finds: 'eof' when no writer holds the FIFO (a serving process killed after Exec leaves none). */
      const read = (): string => {
        try {
          const buffer = Buffer.alloc(64);
          const n = readSync(reader, buffer);
          return n === 0 ? 'eof' : buffer.subarray(0, n).toString();
        } catch (err) {
          return (err as NodeJS.ErrnoException).code as string;
        }
      };
      try {
        await shim.client.exec(id, 'late', { args: ['echo', 'late'], env: [PATH_ENV], cwd: '/' }, { stdout: out });
        expect(read()).toBe('eof');
        await shim.client.start(id, 'late');
        expect((await shim.client.wait(id, 'late')).exit_status).toBe(0);
        expect(read()).toBe('late\n');
        await shim.client.delete(id, 'late');
      } finally {
        closeSync(reader);
      }
      await end(id);
    });

    it('freezes the whole cgroup on Pause: a counter stops, the freezer says so, Resume thaws it', async () => {
      const id = nextId();
      const out = mkfifo(join(shim.dir, `${id}.fifo`));
      const reader = readFifoInAnotherProcess(out);
      const dir = bundle(['sh', '-c', 'i=0; while true; do i=$((i+1)); echo $i; sleep 0.02; done']);
      await shim.client.create({ id, bundle: dir, stdout: out });
      await shim.client.start(id);
      const last = () => Number(reader.output().trim().split('\n').pop() ?? 0);
      await waitFor('the counter', () => last() > 3);
      await shim.client.pause(id);
      expect(freezerStates(bundles.cgroupDirsOf(dir))).toEqual(['FROZEN']);
      await new Promise((r) => setTimeout(r, 100));
      const frozenAt = last();
      await new Promise((r) => setTimeout(r, 400));
      expect(last()).toBe(frozenAt);
      await shim.client.resume(id);
      await waitFor('the counter to go on', () => last() > frozenAt + 2);
      expect(await end(id)).toBe(137);
      await reader.done;
    });

    it('reports memory and pids from the cgroup in Stats', async () => {
      const { id } = await run(['sh', '-c', 'sleep 1000 & sleep 1000 & wait']);
      await waitFor('three processes', async () => (await shim.client.pids(id)).processes.length === 3);
      const stats = skiff.v1.TaskStats.deserialize((await shim.client.stats(id)).stats.value);
      expect(stats.runtime).toBe('runc');
      expect(stats.pids_current).toBe(3);
      expect(stats.pids_limit).toBe(0);
      expect(stats.memory_usage_bytes).toBeGreaterThan(0);
      expect(stats.memory_rss_bytes).toBeGreaterThan(0);
      expect(stats.cpu_usage_ns).toBeGreaterThan(0);
      await end(id);
    });

    it('lowers the pids limit with Update, and the container then hits it', async () => {
      const { id } = await run(['sleep', '1000']);
      // Sixteen children: past a limit of 12, which leaves room for `runc exec`'s own init (a Go
      // program whose threads count as pids while it joins the container's cgroup).
      const forkSixteen = {
        args: ['sh', '-c', 'i=0; while [ $i -lt 16 ]; do sleep 0.2 & i=$((i+1)); done; wait'],
        env: [PATH_ENV],
        cwd: '/',
      };
      await shim.client.exec(id, 'before', forkSixteen);
      await shim.client.start(id, 'before');
      expect((await shim.client.wait(id, 'before')).exit_status).toBe(0);
      await shim.client.delete(id, 'before');

      await shim.client.update(id, { pids: { limit: 12 } });
      const stats = skiff.v1.TaskStats.deserialize((await shim.client.stats(id)).stats.value);
      expect(stats.pids_limit).toBe(12);
      const err = join(shim.dir, `${id}.after.err`);
      await shim.client.exec(id, 'after', forkSixteen, { stderr: err });
      await shim.client.start(id, 'after');
      expect((await shim.client.wait(id, 'after')).exit_status).not.toBe(0);
      expect(readFileSync(err, 'utf8')).toContain("can't fork");
      await shim.client.delete(id, 'after');
      await end(id);
    });

    it("answers INVALID_ARGUMENT with runc's own message for an Update runc rejects", async () => {
      const { id } = await run(['sleep', '1000']);
      const error = await errorOf(shim.client.update(id, { memory: { limit: 'lots' } }));
      expect(error.code).toBe(Code.INVALID_ARGUMENT);
      expect(error.details).toContain('runc update failed');
      await end(id);
    });

    it('checkpoints and restores a counter where criu works, and otherwise says why with FAILED_PRECONDITION', async () => {
      const check = spawnSync('criu', ['check'], {
        encoding: 'utf8',
        env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/sbin` },
      });
      const { id, out } = await run(['sh', '-c', 'i=0; while true; do i=$((i+1)); echo $i; sleep 0.05; done'], {
        pidNamespace: true,
      });
      await waitFor('the counter', () => readFileSync(out, 'utf8').split('\n').length > 3);
      const image = join(shim.dir, `${id}.checkpoint`);
      if (check.status !== 0) {
        const reason =
          check.stderr
            .split('\n')
            .filter((l) => l.includes('Error'))
            .pop() ?? '';
        process.stdout.write(`checkpoint round trip not run: \`criu check\` fails here (${reason.trim()})\n`);
        const err = await errorOf(shim.client.checkpoint(id, image));
        expect(err.code).toBe(Code.FAILED_PRECONDITION);
        expect(err.details).toContain('criu check');
        expect(err.details).toContain(reason.replace(/^Error \([^)]*\):\s*/, '').trim());
        const restoring = nextId();
        await shim.client.create({
          id: restoring,
          bundle: bundle(['true'], { pidNamespace: true }),
          checkpoint: shim.dir,
        });
        const restore = await errorOf(shim.client.start(restoring));
        expect(restore.code).toBe(Code.FAILED_PRECONDITION);
        expect(restore.details).toContain('criu check');
        await shim.client.delete(restoring);
        await end(id);
        return;
      }
      await shim.client.checkpoint(id, image);
      await end(id);
      const countedBefore = Number(readFileSync(out, 'utf8').trim().split('\n').pop());
      const restored = nextId();
      const out2 = join(shim.dir, `${restored}.out`);
      await shim.client.create({
        id: restored,
        bundle: bundle(['sh'], { pidNamespace: true }),
        checkpoint: image,
        stdout: out2,
        stderr: out2,
      });
      await shim.client.start(restored);
      await waitFor(
        'the restored counter',
        () => existsSync(out2) && readFileSync(out2, 'utf8').split('\n').length > 3,
      );
      expect(Number(readFileSync(out2, 'utf8').trim().split('\n')[0])).toBeGreaterThanOrEqual(countedBefore - 1);
      await end(restored);
    });

    it('mounts CreateTaskRequest.rootfs onto the bundle rootfs before create and takes it off at Delete', async () => {
      const id = nextId();
      const dir = bundle(['sh', '-c', 'test -x /bin/busybox && echo mounted'], { ownRootfs: true });
      const out = join(shim.dir, `${id}.out`);
      await shim.client.create({
        id,
        bundle: dir,
        stdout: out,
        rootfs: [new types.Mount({ type: 'bind', source: bundles.rootfs, options: ['rbind', 'ro'] })],
      });
      expect(mountedAt(join(dir, 'rootfs'))).toBe(true);
      await shim.client.start(id);
      expect((await shim.client.wait(id)).exit_status).toBe(0);
      await shim.client.delete(id);
      expect(readFileSync(out, 'utf8')).toBe('mounted\n');
      expect(mountedAt(join(dir, 'rootfs'))).toBe(false);
    });

    it('unmounts again when Create fails after mounting', async () => {
      const dir = bundle(['/no/such/program'], { ownRootfs: true });
      const error = await errorOf(
        shim.client.create({
          id: nextId(),
          bundle: dir,
          rootfs: [new types.Mount({ type: 'bind', source: bundles.rootfs, options: ['rbind'] })],
        }),
      );
      expect(error.code).toBe(Code.INVALID_ARGUMENT);
      expect(error.details).toContain('/no/such/program');
      expect(mountedAt(join(dir, 'rootfs'))).toBe(false);
    });

    it("answers INVALID_ARGUMENT with runc's trimmed message for a bundle runc rejects", async () => {
      const dir = bundle(['true']);
      const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
      config.mounts.push({ destination: '/data', type: 'no-such-fs', source: 'none' });
      require('node:fs').writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
      const error = await errorOf(shim.client.create({ id: nextId(), bundle: dir }));
      expect(error.code).toBe(Code.INVALID_ARGUMENT);
      expect(error.details).toMatch(/runc create failed: .*no-such-fs|runc create failed: .*no such device/);
      expect(error.details).not.toContain('\n');
    });

    it('answers INVALID_ARGUMENT when the request and config.json disagree on the terminal', async () => {
      const error = await errorOf(shim.client.create({ id: nextId(), bundle: bundle(['true']), terminal: true }));
      expect(error.code).toBe(Code.INVALID_ARGUMENT);
      expect(error.details).toContain('process.terminal=false');
    });

    it('runs an exec on a terminal through the console socket', async () => {
      const { id } = await run(['sleep', '1000']);
      const out = mkfifo(join(shim.dir, `${id}.tty`));
      const reader = readFifoInAnotherProcess(out);
      await shim.client.exec(
        id,
        't1',
        { args: ['sh', '-c', 'tty; stty size'], env: [PATH_ENV], cwd: '/' },
        { stdout: out, terminal: true },
      );
      await shim.client.start(id, 't1');
      expect((await shim.client.wait(id, 't1')).exit_status).toBe(0);
      await shim.client.delete(id, 't1');
      expect((await reader.done).replace(/\r/g, '')).toMatch(/^\/dev\/pts\/\d+\n24 80\n$/);
      await end(id);
    });

    it("runs a task named runc beside the others: its files never meet runc's own state", async () => {
      const other = await run(['sleep', '1000']);
      const out = join(shim.dir, 'named-runc.out');
      await shim.client.create({ id: 'runc', bundle: bundle(['echo', 'named runc']), stdout: out, stderr: out });
      await shim.client.start('runc');
      expect((await shim.client.wait('runc')).exit_status).toBe(0);
      await shim.client.delete('runc');
      expect(readFileSync(out, 'utf8')).toBe('named runc\n');
      expect(runcList(shim)).toEqual([other.id]);
      expect(await end(other.id)).toBe(137);
    });

    it('kills what the init left in its cgroup when it exits (no pid namespace), and reaps it', async () => {
      const { id, out } = await run(['sh', '-c', 'sleep 1000 & echo $!']);
      expect((await shim.client.wait(id)).exit_status).toBe(0);
      const left = Number(readFileSync(out, 'utf8').trim());
      expect(left).toBeGreaterThan(0);
      await waitFor(`the background sleep (pid ${left}) killed and reaped`, () => readProcStat(left) === undefined);
      await shim.client.delete(id);
    });

    it("skiff's task client hands Create's runtime options on: runc reads them and names a type it does not know", async () => {
      const client = new GrpcTaskClientFactory().connect(shim.socket);
      try {
        const options = { typeUrl: 'example.com/Other', value: new Uint8Array([8, 1]) };
        const create = client.create({
          id: nextId(),
          bundle: bundle(['true']),
          rootfs: [],
          checkpoint: '',
          parentCheckpoint: '',
          terminal: false,
          stdin: '',
          stdout: '',
          stderr: '',
          options,
        });
        await expect(create).rejects.toThrow(InvalidArgumentError);
        await expect(create).rejects.toThrow(/runtime options of type "example.com\/Other" are not understood/);
      } finally {
        client.close();
      }
    });

    it('leaves no zombie: orphans re-parented to the shim are reaped', async () => {
      // The init exits at once; its background child is killed with it (no pid namespace) and lands on the shim.
      const { id } = await run(['sh', '-c', 'sleep 1000 & exit 0']);
      expect((await shim.client.wait(id)).exit_status).toBe(0);
      await shim.client.delete(id);
      const shimPid = shim.child.pid as number;
      await waitFor('no zombie children of the shim', () =>
        childrenOf(shimPid).every((pid) => readProcStat(pid)?.state !== 'Z'),
      );
    });
  });

function runcList(shim: RunningShim): string[] {
  const text = execFileSync('runc', ['--root', join(shim.stateDir, 'runc'), 'list', '--format', 'json'], {
    encoding: 'utf8',
  }).trim();
  const list = JSON.parse(text === '' ? 'null' : text) as Array<{ id: string }> | null;
  return (list ?? []).map((c) => c.id);
}

/** Whether something is mounted exactly at `path` (this process's mount table). */
function mountedAt(path: string): boolean {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .some((line) => line.split(' ')[4] === path);
}

function childrenOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
    readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8')
      .split(' ')
      .filter((p) => p !== '')
      .map(Number),
  );
}

/**
 * The freezer state of a container's cgroup: v1's freezer.state where a v1 freezer is
 * mounted, else v2's cgroup.freeze (a hybrid machine also has an idle v2 directory).
 */
function freezerStates(cgroupDirs: string[]): string[] {
  const v1 = cgroupDirs.map((dir) => join(dir, 'freezer.state')).filter((path) => existsSync(path));
  if (v1.length > 0) return v1.map((path) => readFileSync(path, 'utf8').trim());
  const v2 = cgroupDirs.map((dir) => join(dir, 'cgroup.freeze')).filter((path) => existsSync(path));
  return v2.map((path) => (readFileSync(path, 'utf8').trim() === '1' ? 'FROZEN' : 'THAWED'));
}
