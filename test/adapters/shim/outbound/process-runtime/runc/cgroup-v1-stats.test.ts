import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCgroupV1Stats } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/cgroup-v1-stats';
import { ContainerCgroup } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/container-cgroup';
import { parseRuncStats } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/runc-stats';
import { RuncBundleFactory, runcTestsEnabled } from '../../../../../support/runc-bundles';

/** A cgroup v1 tree under a temporary root: each controller's files for the cgroup /pod/c. */
function v1Tree(files: Record<string, Record<string, string>>, mounts: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'skiff-cgv1-'));
  for (const [controller, contents] of Object.entries(files)) {
    const dir = join(root, mounts[controller] ?? controller, 'pod', 'c');
    mkdirSync(dir, { recursive: true });
    for (const [name, text] of Object.entries(contents)) writeFileSync(join(dir, name), text);
  }
  return root;
}

const PROC_CGROUP = '12:pids:/pod/c\n8:cpu,cpuacct:/pod/c\n5:memory:/pod/c\n3:devices:/pod/c\n1:name=systemd:/pod/c\n';

describe('a cgroup v1 container’s Stats read from its files', () => {
  const roots: string[] = [];
  afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

  it('reads the figures runc reads, with a joint cpu,cpuacct mount and v1’s “unlimited”', () => {
    const root = v1Tree(
      {
        cpuacct: { 'cpuacct.usage': '123456789\n', 'cpuacct.stat': 'user 7\nsystem 3\n' },
        memory: {
          'memory.usage_in_bytes': '4096000\n',
          'memory.limit_in_bytes': '9223372036854771712\n',
          'memory.stat': 'cache 0\nrss 1000\ntotal_rss 2000\n',
        },
        pids: { 'pids.current': '3\n', 'pids.max': 'max\n' },
      },
      { cpuacct: 'cpu,cpuacct' },
    );
    roots.push(root);
    const dirs = ContainerCgroup.parse(PROC_CGROUP, 1, root).v1StatsDirs;
    expect(dirs).toEqual({
      memory: join(root, 'memory/pod/c'),
      cpuacct: join(root, 'cpu,cpuacct/pod/c'),
      pids: join(root, 'pids/pod/c'),
    });
    expect(readCgroupV1Stats(dirs!, 'task "c"')).toEqual({
      cpuUsageNs: 123456789,
      cpuUserNs: 70_000_000,
      cpuSystemNs: 30_000_000,
      memoryRssBytes: 2000,
      memoryUsageBytes: 4096000,
      memoryLimitBytes: 0,
      pidsCurrent: 3,
      pidsLimit: 0,
    });
  });

  it('is NotFound once the cgroup is gone, and says which file is not what the kernel writes', () => {
    const root = v1Tree({
      cpuacct: { 'cpuacct.usage': '1\n', 'cpuacct.stat': 'user x\n' },
      memory: { 'memory.usage_in_bytes': '1\n' },
    });
    roots.push(root);
    const dirs = ContainerCgroup.parse(PROC_CGROUP, 1, root).v1StatsDirs!;
    expect(() => readCgroupV1Stats(dirs, 'task "c"')).toThrow(
      /cpuacct.stat has a line that is not "<key> <count>": "user x"/,
    );
    expect(() => readCgroupV1Stats({ ...dirs, memory: join(root, 'gone') }, 'task "c"')).toThrow(
      expect.objectContaining({ code: 'CGROUP.GONE', message: expect.stringMatching(/cgroup does not exist/) }),
    );
  });

  it('knows no directories where memory or cpuacct is not listed (a cgroup v2 host)', () => {
    expect(ContainerCgroup.parse('0::/pod/c\n', 1, '/nonexistent').v1StatsDirs).toBeUndefined();
  });

  // Held to runc's own reading of a real container's cgroup (a v1 host, as root).
  if (runcTestsEnabled() && existsSync('/sys/fs/cgroup/memory'))
    it('agrees with `runc events --stats` on a running container', () => {
      const bundles = new RuncBundleFactory();
      const runcRoot = join(bundles.root, 'state');
      const id = `skiff-cgv1-${process.pid}`;
      const runc = (...args: string[]) => execFileSync('runc', ['--root', runcRoot, ...args], { encoding: 'utf8' });
      try {
        const bundle = bundles.make(['sleep', '30']);
        spawnSync('runc', ['--root', runcRoot, 'run', '-d', '--bundle', bundle, id], { stdio: 'ignore' });
        const pid = Number(JSON.parse(runc('state', id)).pid);
        const fromRunc = parseRuncStats(runc('events', '--stats', id), id);
        const fromFiles = readCgroupV1Stats(ContainerCgroup.of(pid).v1StatsDirs!, id);
        // A sleeping container: its CPU and memory hold still between the two readings.
        expect(fromFiles).toEqual(fromRunc);
      } finally {
        spawnSync('runc', ['--root', runcRoot, 'delete', '--force', id], { stdio: 'ignore' });
        bundles.cleanup();
      }
    });
});
