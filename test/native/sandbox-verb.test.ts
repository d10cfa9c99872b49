import { ChildProcess, fork, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parentOf, pids } from '../support/procs';
import { waitFor } from '../support/wait-for';
import { ROOT } from './support/c-build';

/**
 * `containerd-shim-skiff-v2 sandbox` (native/containerd-shim/sandbox.c): the process that holds a
 * pod's namespaces for containerd's Sandbox API (docs/sandbox-api.md §3). It is run here as the pod
 * keeper runs it (support/sandbox-keeper.js, a child subreaper): exit 0, then the pid in the pid
 * file, re-parented to the launcher, which reaps it.
 */
const SHIM = resolve(ROOT, 'build/Release/containerd-shim-skiff-v2');
const PREFIX = 'containerd-shim-skiff-v2 sandbox: ';
const LINUX = process.platform === 'linux';

function sandbox(args: string[]) {
  return spawnSync(SHIM, ['sandbox', ...args], { encoding: 'utf8', timeout: 10_000 });
}

/** What a line of `sandbox` says about itself: one line, this program's. */
function oneLine(stderr: string): string {
  expect(stderr.startsWith(PREFIX)).toBe(true);
  expect(stderr.endsWith('\n')).toBe(true);
  expect(stderr.slice(0, -1)).not.toContain('\n');
  return stderr.slice(PREFIX.length, -1);
}

if (!LINUX) process.stderr.write('sandbox verb suite not run: containerd-shim-skiff-v2 is Linux-only\n');

if (LINUX)
  describe('containerd-shim-skiff-v2 sandbox, its command line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-sandbox-usage-'));
    const pidFile = join(dir, 'pid');
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it.each([
      { args: [], names: /--pid-file is required/ },
      { args: ['--pid-file'], names: /--pid-file needs a value/ },
      { args: ['--pid-file', '--share-pid'], names: /--pid-file needs a value/ },
      { args: ['--pid-file', pidFile, '--netns'], names: /--netns needs a value/ },
      { args: ['--pid-file', pidFile, '--bogus'], names: /unknown flag --bogus/ },
      { args: ['--pid-file', pidFile, '-netns=x'], names: /-netns=x is not a flag/ },
      { args: ['--pid-file', pidFile, 'extra'], names: /extra is not a flag/ },
      { args: ['--pid-file', pidFile, '--share-pid=true'], names: /--share-pid takes no value/ },
      { args: ['--pid-file', pidFile, '--pid-file', pidFile], names: /--pid-file is given twice/ },
      { args: ['--pid-file', pidFile, '--hostname', 'h', '--host-uts'], names: /--hostname .*--host-uts/ },
      { args: ['--pid-file', pidFile, '--netns', '/n', '--sysctl', 'net.ipv4.ip_forward'], names: /--sysctl .* '='/ },
      { args: ['--pid-file', pidFile, '--sysctl', '=1'], names: /--sysctl =1 has an empty key/ },
      { args: ['--pid-file', pidFile, '--sysctl', 'kernel.shm max=1'], names: /--sysctl kernel\.shm max=1: a key is/ },
      { args: ['--pid-file', pidFile, '--netns', '/n', '--sysctl', 'net/../kernel/x=1'], names: /--sysctl .*'\.\.'/ },
      { args: ['--pid-file', pidFile, '--netns', '/n', '--sysctl', 'net.ipv4.=1'], names: /--sysctl .*empty part/ },
      { args: ['--pid-file', pidFile, '--sysctl', 'net.ipv4.ip_forward=1'], names: /--sysctl .*give --netns/ },
      { args: ['--pid-file', pidFile, '--host-ipc', '--sysctl', 'kernel.shmmni=1'], names: /--sysctl .*--host-ipc/ },
      { args: ['--pid-file', pidFile, '--sysctl', 'kernel.panic=1'], names: /--sysctl kernel\.panic is not of a pod/ },
      {
        args: ['--pid-file', pidFile, '--sysctl', 'vm/swappiness=1'],
        names: /--sysctl vm\/swappiness is not of a pod/,
      },
    ])('refuses $args with exit 2 and one line naming the flag', ({ args, names }) => {
      const result = sandbox(args);
      expect(oneLine(result.stderr)).toMatch(names);
      expect(result.status).toBe(2);
      expect(readdirSync(dir)).toEqual([]);
    });

    it('shows a control character of an argument as ?, so its one line stays one', () => {
      expect(oneLine(sandbox(['--pid-file', pidFile, '--sysctl', 'a\nb']).stderr)).toBe(
        "--sysctl a?b has no '=': give KEY=VALUE",
      );
    });
  });

/** Why the namespaces cannot be tried here, or undefined when they can. */
function unsupported(): string | undefined {
  if (!LINUX) return 'Linux-only';
  if (process.getuid?.() !== 0) return 'needs root (setns, unshare, ip netns)';
  for (const [tool, pkg] of [
    ['nsenter', 'util-linux'],
    ['ip', 'iproute2'],
  ])
    if (spawnSync(tool, ['-V']).error !== undefined) return `needs ${tool}: apt-get install ${pkg}`;
  return undefined;
}

interface Launched {
  status: number | null;
  signal: string | null;
  stderr: string;
  pid: number;
  parent: number;
}
interface Exit {
  code: number | null;
  signal: number | null;
}

const reason = unsupported();
if (reason !== undefined && LINUX) process.stderr.write(`sandbox verb namespace suite not run: ${reason}\n`);

(reason === undefined ? describe : describe.skip)('containerd-shim-skiff-v2 sandbox, the holder', () => {
  let dir: string;
  let keeper: ChildProcess;
  let seq = 0;
  let n = 0;
  const replies = new Map<number, (body: unknown) => void>();
  /** What a test left to end: holders, network namespaces. */
  let holders: number[] = [];
  let netnses: string[] = [];

  function ask<T>(message: object): Promise<T> {
    const id = ++seq;
    return new Promise<T>((answer) => {
      replies.set(id, answer as (body: unknown) => void);
      keeper.send({ ...message, seq: id });
    });
  }

  /** `sandbox args` launched by the keeper stand-in; its pid file and log in the test's directory. */
  async function launch(args: string[], pidFile = join(dir, `pid-${++n}`)) {
    const launched = await ask<Launched>({
      op: 'launch',
      argv: [SHIM, 'sandbox', '--pid-file', pidFile, ...args],
      pidFile,
      log: join(dir, `log-${n}`),
    });
    if (launched.pid > 0) holders.push(launched.pid);
    return { ...launched, pidFile };
  }

  /** A holder the test expects: launched, exited 0, named in its pid file, now the keeper's. */
  async function hold(args: string[]): Promise<number> {
    const launched = await launch(args);
    expect({ status: launched.status, stderr: launched.stderr }).toEqual({ status: 0, stderr: '' });
    expect(launched.parent).toBe(keeper.pid);
    return launched.pid;
  }

  async function exitOf(pid: number): Promise<Exit> {
    return waitFor(
      `the exit of holder ${pid}`,
      async () => (await ask<{ exits: Record<number, Exit | null> }>({ op: 'exits' })).exits[pid] ?? undefined,
    );
  }

  const ns = (pid: number | 'self', kind: string) => readlinkSync(`/proc/${pid}/ns/${kind}`);
  const inside = (pid: number, flags: string[], command: string[]) =>
    spawnSync('nsenter', ['--target', String(pid), ...flags, '--', ...command], { encoding: 'utf8' }).stdout.trim();
  /** Its /proc comm; '' once it is gone. */
  const comm = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8');
    } catch {
      return '';
    }
  };
  const sandboxes = () => pids().filter((pid) => existsSync(`/proc/${pid}/comm`) && comm(pid) === 'skiff-sandbox\n');

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'skiff-sandbox-'));
    keeper = fork(join(__dirname, 'support/sandbox-keeper.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    keeper.on('message', (body: { seq: number }) => {
      replies.get(body.seq)?.(body);
      replies.delete(body.seq);
    });
  });

  afterEach(async () => {
    for (const pid of holders) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // ended by the test
      }
      await exitOf(pid);
    }
    for (const name of netnses) spawnSync('ip', ['netns', 'delete', name]);
    holders = [];
    netnses = [];
  });

  afterAll(async () => {
    await ask({ op: 'end' });
    rmSync(dir, { recursive: true, force: true });
  });

  it('names the network namespace it cannot open, exits 1 and leaves no pid file', async () => {
    const missing = join(dir, 'no-such-netns');
    const launched = await launch(['--netns', missing]);
    expect(oneLine(launched.stderr)).toBe(`open netns ${missing}: No such file or directory`);
    expect(launched.status).toBe(1);
    expect(existsSync(launched.pidFile)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('pid-'))).toEqual([]);
  });

  it('names a sysctl it cannot write and exits 1 with no holder left', async () => {
    const name = netns();
    const before = sandboxes();
    const launched = await launch(['--netns', `/run/netns/${name}`, '--sysctl', 'net.ipv4.no_such_sysctl=1']);
    expect(oneLine(launched.stderr)).toBe(
      'sysctl net.ipv4.no_such_sysctl: open /proc/sys/net/ipv4/no_such_sysctl: No such file or directory',
    );
    expect(launched.status).toBe(1);
    expect(existsSync(launched.pidFile)).toBe(false);
    expect(sandboxes()).toEqual(before);
  });

  it('kills the holder it forked when the pid file cannot be written, and exits 1', async () => {
    const before = sandboxes();
    const pidFile = join(dir, 'no-such-dir', 'pid');
    const launched = await launch([], pidFile);
    expect(oneLine(launched.stderr)).toMatch(new RegExp(`^create ${pidFile}\\.\\d+\\.tmp: No such file or directory$`));
    expect(launched.status).toBe(1);
    expect(sandboxes()).toEqual(before);
  });

  it("holds new UTS and IPC namespaces, the UTS one named by --hostname, in the host's PID and network namespaces", async () => {
    const pid = await hold(['--hostname', 'pod-a']);
    expect(comm(pid)).toBe('skiff-sandbox\n');
    expect(readFileSync(`/proc/${pid}/cmdline`, 'latin1').replace(/\0+$/, '')).toBe('skiff-sandbox');
    expect(ns(pid, 'uts')).not.toBe(ns('self', 'uts'));
    expect(ns(pid, 'ipc')).not.toBe(ns('self', 'ipc'));
    expect(ns(pid, 'pid')).toBe(ns('self', 'pid'));
    expect(ns(pid, 'net')).toBe(ns('self', 'net'));
    expect(inside(pid, ['--uts'], ['hostname'])).toBe('pod-a');
    // The pid file: the host's pid in decimal, no newline, this user's only; nothing else left beside it.
    expect(readFileSync(join(dir, `pid-${n}`), 'utf8')).toBe(String(pid));
    expect(statSync(join(dir, `pid-${n}`)).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((f) => f.startsWith(`pid-${n}`))).toEqual([`pid-${n}`]);
    expect(readlinkSync(`/proc/${pid}/cwd`)).toBe('/');
    // Of what it inherited only stderr, the sandbox log; no stdin or stdout.
    expect(readdirSync(`/proc/${pid}/fd`).sort()).toEqual(['0', '1', '2']);
    expect([0, 1, 2].map((fd) => readlinkSync(`/proc/${pid}/fd/${fd}`))).toEqual([
      '/dev/null',
      '/dev/null',
      join(dir, `log-${n}`),
    ]);
  });

  it("keeps the host's IPC and UTS namespaces with --host-ipc and --host-uts", async () => {
    const pid = await hold(['--host-ipc', '--host-uts']);
    expect(ns(pid, 'uts')).toBe(ns('self', 'uts'));
    expect(ns(pid, 'ipc')).toBe(ns('self', 'ipc'));
  });

  it('is pid 1 of a new PID namespace with --share-pid', async () => {
    const pid = await hold(['--share-pid']);
    expect(readFileSync(`/proc/${pid}/status`, 'utf8')).toContain(`\nNSpid:\t${pid}\t1\n`);
    expect(ns(pid, 'pid')).not.toBe(ns('self', 'pid'));
    expect(inside(pid, ['--pid'], ['sh', '-c', 'echo $$'])).not.toBe('1');
  });

  function netns(): string {
    const name = `skf-test-${randomBytes(4).toString('hex')}`;
    expect(spawnSync('ip', ['netns', 'add', name]).status).toBe(0);
    netnses.push(name);
    return name;
  }

  it('enters --netns and writes the sysctls there and in its IPC namespace, in either spelling, none on the host', async () => {
    const name = netns();
    const host = (key: string) => readFileSync(`/proc/sys/${key}`, 'utf8').trim();
    const before = ['net/ipv4/ip_unprivileged_port_start', 'net/ipv4/ip_default_ttl', 'kernel/shmmni'].map(host);
    const pid = await hold([
      '--netns',
      `/run/netns/${name}`,
      '--sysctl',
      'net.ipv4.ip_unprivileged_port_start=0',
      '--sysctl',
      'net/ipv4/ip_default_ttl=77',
      '--sysctl',
      'kernel.shmmni=1000',
    ]);
    expect(statSync(`/proc/${pid}/ns/net`).ino).toBe(statSync(`/run/netns/${name}`).ino);
    expect(inside(pid, ['--net'], ['cat', '/proc/sys/net/ipv4/ip_unprivileged_port_start'])).toBe('0');
    expect(inside(pid, ['--net'], ['cat', '/proc/sys/net/ipv4/ip_default_ttl'])).toBe('77');
    expect(inside(pid, ['--ipc'], ['cat', '/proc/sys/kernel/shmmni'])).toBe('1000');
    expect(['net/ipv4/ip_unprivileged_port_start', 'net/ipv4/ip_default_ttl', 'kernel/shmmni'].map(host)).toEqual(
      before,
    );
    expect(before).not.toEqual(['0', '77', '1000']);
  });

  it('exits 0 on SIGTERM and on SIGINT, reaped by its launcher', async () => {
    const [term, int] = [await hold(['--share-pid']), await hold([])];
    process.kill(term, 'SIGTERM');
    process.kill(int, 'SIGINT');
    expect(await exitOf(term)).toEqual({ code: 0, signal: null });
    expect(await exitOf(int)).toEqual({ code: 0, signal: null });
  });

  it('takes other signals without ending', async () => {
    const pid = await hold([]);
    for (const signal of ['SIGHUP', 'SIGUSR1', 'SIGCHLD', 'SIGPIPE'] as const) process.kill(pid, signal);
    await new Promise((done) => setTimeout(done, 100));
    expect(readFileSync(`/proc/${pid}/stat`, 'latin1')).toMatch(/\) S /);
  });

  it("reaps, as pid 1 of the pod's PID namespace, an orphan re-parented to it", async () => {
    const pid = await hold(['--share-pid']);
    // sh's subshell leaves `sleep` behind: an orphan of the pod's PID namespace, whose reaper is pid 1.
    const ran = spawnSync('nsenter', ['--target', String(pid), '--pid', '--', 'sh', '-c', '(sleep 0.5 &) ; exit 0'], {
      stdio: 'ignore',
    });
    expect(ran.status).toBe(0);
    // Re-parented it may still be the subshell's fork, `sh` until its exec of sleep.
    const orphan = await waitFor('the orphan', () => pids().find((p) => parentOf(p) === pid && comm(p) === 'sleep\n'));
    // Once it exits only its parent can take it out of /proc: a zombie would stay.
    await waitFor(`the orphan ${orphan} reaped`, () => !existsSync(`/proc/${orphan}`));
    expect(readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')).toBe('');
  });
});
