import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProcessExit } from '../../../../../../src/domain/shim/exit-status';
import { NativeRuntime } from '../../../../../../src/adapters/shim/outbound/process-runtime/native/native-runtime';
import { TaskHandle } from '../../../../../../src/application/shim/ports/process-runtime.port';
import { BundleFactory } from '../../../../../support/bundles';
import { waitFor } from '../../../../../support/wait-for';
import { readProcStat } from '../../../../../../src/adapters/shim/os/proc-fs';
import { constants } from 'node:os';

const { SIGSTOP } = constants.signals;

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;

/** What only the native runtime promises beyond the shared contract. */
describe('NativeRuntime', () => {
  const bundles = new BundleFactory();
  const runtime = new NativeRuntime();
  let n = 0;
  afterAll(() => bundles.cleanup());

  async function run(process: Record<string, unknown>): Promise<{ exit: ProcessExit; out: string }> {
    const out = join(bundles.root, `out${n}`);
    let exited!: (exit: ProcessExit) => void;
    const exit = new Promise<ProcessExit>((resolve) => (exited = resolve));
    const bundle = bundles.makeWithConfig({
      ociVersion: '1.0.2',
      process: { env: ['PATH=/usr/bin:/bin'], cwd: '/', ...process },
    });
    const stdio = { stdin: '', stdout: out, stderr: out, terminal: false };
    const task = await runtime.create(
      { id: `n${n++}`, bundle, stdio, rootfs: [], checkpoint: '' },
      { onExit: exited, execs: () => [] },
    );
    await task.start();
    const status = await exit;
    await task.delete();
    return { exit: status, out: readFileSync(out, 'utf8') };
  }

  it(`runs the spec's user ${isRoot ? 'as root' : '(not applied: the shim is not root)'}, without supplementary groups`, async () => {
    const { out } = await run({
      args: ['sh', '-c', 'echo $(id -u) $(id -g) $(id -G)'],
      user: { uid: NOBODY, gid: NOBODY, additionalGids: [0] },
    });
    const [uid, gid, ...groups] = out.trim().split(' ').map(Number);
    if (isRoot) expect({ uid, gid, groups }).toEqual({ uid: NOBODY, gid: NOBODY, groups: [NOBODY] });
    else expect({ uid, gid }).toEqual({ uid: process.getuid?.(), gid: process.getgid?.() });
  });

  it('refuses a spec with a user namespace or id mappings, which host processes cannot honour, naming the task', async () => {
    for (const linux of [
      { namespaces: [{ type: 'user' }] },
      { uidMappings: [{ containerID: 0, hostID: 100000, size: 65536 }] },
    ]) {
      const bundle = bundles.makeWithConfig({ ociVersion: '1.0.2', process: { args: ['true'], cwd: '/' }, linux });
      const stdio = { stdin: '', stdout: '', stderr: '', terminal: false };
      await expect(
        runtime.create(
          { id: 'userns', bundle, stdio, rootfs: [], checkpoint: '' },
          { onExit: () => undefined, execs: () => [] },
        ),
      ).rejects.toThrow(
        'task "userns": the native runtime runs host processes and makes no user namespace; drop linux.uidMappings, gidMappings and the user namespace, or use --runtime runc',
      );
    }
  });

  it('keeps argv[0] as the spec wrote it and runs the program found in PATH', async () => {
    const { out } = await run({ args: ['sh', '-c', 'echo "$0"'] });
    expect(out).toBe('sh\n');
  });

  it('runs a program with default signal dispositions, in its own session', async () => {
    // Node ignores SIGPIPE; a child must not inherit that (SigIgn is the ignored-signal mask).
    const { out } = await run({ args: ['sh', '-c', 'grep SigIgn /proc/self/status; ps -o sid= -p $$; echo $$'] });
    const [ignored, sid, pid] = out
      .trim()
      .split('\n')
      .map((l) => l.trim());
    expect(BigInt(`0x${ignored.split(/\s+/)[1]}`) & (1n << 12n)).toBe(0n);
    expect(sid).toBe(pid);
  });

  /** A task running `sleep 100`, created (not started), and its exit. */
  async function createSleeper(id: string): Promise<{ task: TaskHandle; exit: Promise<ProcessExit> }> {
    let exited!: (exit: ProcessExit) => void;
    const exit = new Promise<ProcessExit>((resolve) => (exited = resolve));
    const bundle = bundles.makeWithConfig({
      ociVersion: '1.0.2',
      process: { args: ['sleep', '100'], env: ['PATH=/usr/bin:/bin'], cwd: '/' },
    });
    const stdio = { stdin: '', stdout: '', stderr: '', terminal: false };
    const task = await runtime.create(
      { id, bundle, stdio, rootfs: [], checkpoint: '' },
      { onExit: exited, execs: () => [] },
    );
    return { task, exit };
  }

  it('finds a task from Create on: its init counts before it has left the shim’s session', async () => {
    // The init is started without waiting for its setsid (spawnGated): Pids and kill --all
    // must not miss it in the microseconds before.
    for (let round = 0; round < 40; round++) {
      const { task, exit } = await createSleeper(`s${round}`);
      const pids = (await task.pids()).map((p) => p.pid);
      await task.killAll(9);
      const timedOut = new Promise<string>((resolve) =>
        setTimeout(() => resolve('not killed within 5 s'), 5000).unref(),
      );
      expect({ round, pids, exit: await Promise.race([exit, timedOut]) }).toEqual({
        round,
        pids: [task.pid],
        exit: { code: null, signal: 9 },
      });
      await task.delete();
    }
  });

  /**
   * Runs `body` with this thread (and so the processes it starts) held to one CPU: a child
   * started without waiting runs only when this thread waits, as on a busy machine.
   */
  async function onOneCpu<T>(body: () => Promise<T>): Promise<T> {
    const mask = execFileSync('taskset', ['-p', String(process.pid)], { encoding: 'utf8' })
      .trim()
      .split(' ')
      .pop()!;
    execFileSync('taskset', ['-p', '1', String(process.pid)]);
    try {
      return await body();
    } finally {
      execFileSync('taskset', ['-p', mask, String(process.pid)]);
    }
  }

  it('counts, in Stats right after Create, the init’s memory and not the shim’s it shares until its exec', async () => {
    // Until its exec the init shares this process's memory: its VmRSS is the shim's (tens of MB).
    // On one CPU with this thread, the init runs only once this thread waits.
    const rss = await onOneCpu(async () => {
      const seen: number[] = [];
      for (let round = 0; round < 20; round++) {
        const { task, exit } = await createSleeper(`m${round}`);
        seen.push((await task.stats()).memoryRssBytes);
        await task.killAll(9);
        await exit;
        await task.delete();
      }
      return seen;
    });
    expect(rss.filter((bytes) => bytes > 8 * 1024 * 1024)).toEqual([]);
  });

  it('pauses a task right after Start only once its init has exec’d: a stopped init holds none of the shim’s descriptors', async () => {
    // Stopped before its exec, the init would keep its copy of every descriptor of the shim
    // (another task's stdin writer: that task would not see end-of-file) and the shim's memory.
    const held = await onOneCpu(async () => {
      const shim = realpathSync(process.execPath);
      const seen: number[] = [];
      for (let round = 0; round < 20; round++) {
        const { task, exit } = await createSleeper(`p${round}`);
        await task.start();
        await task.pause();
        if (readlinkSync(`/proc/${task.pid}/exe`) === shim) seen.push(readdirSync(`/proc/${task.pid}/fd`).length);
        await task.killAll(9);
        await task.resume();
        await exit;
        await task.delete();
      }
      return seen;
    });
    // Each entry: how many descriptors an init stopped as the shim's copy held.
    expect(held).toEqual([]);
  });

  it.each(['kill', 'killAll'] as const)(
    '%s right after Create signals only once the init has exec’d: SIGSTOP freezes no copy of the shim',
    async (how) => {
      // Before its exec the init is a copy of the shim (its memory, its descriptors): stopped
      // then, it would hold them while stopped; a SIGQUIT would dump the shim's memory.
      const stoppedAsShim = await onOneCpu(async () => {
        const shim = realpathSync(process.execPath);
        let count = 0;
        for (let round = 0; round < 20; round++) {
          const { task, exit } = await createSleeper(`${how}${round}`);
          await task[how](SIGSTOP);
          await waitFor(`init ${task.pid} stopped`, () => readProcStat(task.pid)?.state === 'T');
          if (readlinkSync(`/proc/${task.pid}/exe`) === shim) count++;
          await task.killAll(9);
          await exit;
          await task.delete();
        }
        return count;
      });
      expect(stoppedAsShim).toBe(0);
    },
  );

  it('refuses at Create a process whose arguments and environment are too long for an exec', async () => {
    // Not an init that exits 127 before Start, with a line about skiff-gate on a stderr that may be unset.
    const bundle = bundles.makeWithConfig({
      ociVersion: '1.0.2',
      process: { args: ['true'], env: ['PATH=/usr/bin:/bin', `BIG=${'x'.repeat(200_000)}`], cwd: '/' },
    });
    const stdio = { stdin: '', stdout: '', stderr: '', terminal: false };
    const created = runtime.create(
      { id: 'big', bundle, stdio, rootfs: [], checkpoint: '' },
      { onExit: () => undefined, execs: () => [] },
    );
    await expect(created).rejects.toThrow(/could not start \/\S+\/true: posix_spawn: Argument list too long/);
  });

  it('runs a file without a #! line under /bin/sh, as execvp does', async () => {
    const script = join(bundles.root, 'no-shebang');
    writeFileSync(script, 'echo "script ran with $1"\n', { mode: 0o755 });
    const { exit, out } = await run({ args: [script, 'an-arg'] });
    expect(exit).toEqual({ code: 0, signal: null });
    expect(out).toBe('script ran with an-arg\n');
  });
});
