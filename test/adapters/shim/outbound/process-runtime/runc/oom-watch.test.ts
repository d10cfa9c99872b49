import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ContainerCgroup } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/container-cgroup';
import {
  watchMemoryEvents,
  watchOom,
} from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/oom-watch';
import { runcTestsEnabled } from '../../../../../support/runc-bundles';
import { waitFor } from '../../../../../support/wait-for';

/**
 * The cgroup v2 OOM watch, on a regular file written the way the kernel rewrites
 * memory.events (inotify reports both as modified). This machine is cgroup v1, so the
 * end-to-end OOM tests (containerd, CRI) run the v1 watch; this one holds the v2 watch's part.
 */
describe('OOM kills on cgroup v2 (memory.events)', () => {
  let dir: string;
  let file: string;
  const events = (oomKill: number, oom = oomKill) =>
    writeFileSync(file, `low 0\nhigh 0\nmax ${oom * 3}\noom ${oom}\noom_kill ${oomKill}\noom_group_kill 0\n`);
  const populated = (holdsProcesses: boolean) =>
    writeFileSync(join(dir, 'cgroup.events'), `populated ${holdsProcesses ? 1 : 0}\nfrozen 0\n`);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 100));
  /** The inotify watches this process holds on `paths` (an inotify fd's fdinfo has an `inotify wd:` line per watch). */
  const watchesOn = (...paths: string[]) => {
    const inodes = paths.map((path) => `ino:${statSync(path).ino.toString(16)} `);
    return readdirSync('/proc/self/fdinfo')
      .flatMap((fd) => {
        try {
          return readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1').split('\n');
        } catch {
          return []; // closed meanwhile
        }
      })
      .filter((line) => line.startsWith('inotify wd:') && inodes.some((inode) => line.includes(inode))).length;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'skiff-oom-'));
    file = join(dir, 'memory.events');
    events(0);
    populated(true);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reports once for each rise of oom_kill, not for other changes of the file', async () => {
    let reports = 0;
    expect(watchMemoryEvents(file, () => reports++)).toBeDefined();
    events(0, 2); // memory.max hit, nothing killed
    await settle();
    expect(reports).toBe(0);
    events(1);
    await settle();
    expect(reports).toBe(1);
    events(1);
    await settle();
    events(3);
    await settle();
    expect(reports).toBe(2);
  });

  it('check() tells a kill the file counts before inotify does, and the kill is told once', async () => {
    let reports = 0;
    const watch = watchMemoryEvents(file, () => reports++);
    events(1);
    watch?.check(); // the init's exit came first: it is reported after this
    expect(reports).toBe(1);
    await settle();
    expect(reports).toBe(1);
    watch?.check();
    expect(reports).toBe(1);
  });

  it('counts from what the file says when the watch starts', async () => {
    events(4);
    let reports = 0;
    watchMemoryEvents(file, () => reports++);
    events(4, 5);
    await settle();
    expect(reports).toBe(0);
  });

  it('starts no watch on a file it cannot read, and ends quietly when the cgroup goes', async () => {
    expect(watchMemoryEvents(join(dir, 'missing'), () => undefined)).toBeUndefined();
    let reports = 0;
    watchMemoryEvents(file, () => reports++);
    rmSync(file);
    await settle();
    writeFileSync(file, 'oom_kill 9\n'); // a new cgroup of the same name is not this one
    await settle();
    expect(reports).toBe(0);
  });

  // A removed cgroup v2 tells the watchers of its files nothing (kernfs sends no inotify event),
  // so a watch waiting for that would outlive its container in a long-lived serving process.
  it('ends, letting go of its inotify watches, once cgroup.events says the cgroup holds no process', async () => {
    const cgroupEvents = join(dir, 'cgroup.events');
    let reports = 0;
    expect(watchMemoryEvents(file, () => reports++)).toBeDefined();
    expect(watchesOn(file, cgroupEvents)).toBeGreaterThan(0);
    populated(false);
    await settle();
    expect(watchesOn(file, cgroupEvents)).toBe(0);
    events(1);
    await settle();
    expect(reports).toBe(0);
  });

  it('starts no watch on a cgroup that holds no process any more', () => {
    populated(false);
    expect(watchMemoryEvents(file, () => undefined)).toBeUndefined();
  });

  it('finds memory.events on a cgroup v2 host, and the v1 memory directory otherwise', () => {
    const v2 = ContainerCgroup.parse('0::/k8s.io/abc\n', 1);
    expect([v2.memoryV1Dir, v2.unifiedDir]).toEqual([undefined, '/sys/fs/cgroup/k8s.io/abc']);
    const v1 = ContainerCgroup.parse('12:memory:/ns/abc\n11:devices:/ns/abc\n0::/ns/abc\n', 1);
    expect([v1.memoryV1Dir, v1.unifiedDir]).toEqual(['/sys/fs/cgroup/memory/ns/abc', undefined]);
  });
});

const V1_MEMORY = '/sys/fs/cgroup/memory';

/**
 * The cgroup v1 watch (native/addon/oom.c) on a memory cgroup of its own: a shell whose string
 * doubles past the cgroup's limit, then the cgroup removed. A cgroup of its own needs root,
 * so it runs with the runc suites, on a host with the v1 memory controller (a cgroup v2
 * host has no v1 watch to test).
 */
if (runcTestsEnabled() && existsSync(V1_MEMORY))
  describe('OOM kills on cgroup v1 (memory.oom_control eventfd)', () => {
    const eventfds = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === 'anon_inode:[eventfd]';
        } catch {
          return false; // the directory's own descriptor, closed by now
        }
      }).length;

    it('calls back once per OOM kill, and lets go of its descriptors when the cgroup is removed', async () => {
      const dir = mkdtempSync(join(V1_MEMORY, 'skiff-oom-'));
      try {
        writeFileSync(join(dir, 'memory.limit_in_bytes'), String(16 << 20));
        const before = eventfds();
        let reports = 0;
        expect(
          watchOom(ContainerCgroup.parse(`5:memory:${dir.slice(V1_MEMORY.length)}\n`, 1), () => reports++),
        ).toBeDefined();
        expect(eventfds()).toBe(before + 1);
        const hog = spawn('sh', ['-c', `echo $$ > ${dir}/cgroup.procs; a=x; while true; do a=$a$a; done`]);
        const [code, signal] = await once(hog, 'exit');
        expect({ code, signal }).toEqual({ code: null, signal: 'SIGKILL' });
        await waitFor('one OOM report', () => reports === 1, 5000);
        rmdirSync(dir);
        await waitFor('the eventfd to be closed', () => eventfds() === before, 5000);
        expect(reports).toBe(1);
      } finally {
        rmSync(dir, { recursive: false, force: true });
      }
    });

    // The kernel's removal signal comes from a work item some milliseconds after the rmdir; a
    // container id used again (runc names the cgroup after it without a cgroupsPath) has made
    // the new cgroup by then. That wake-up once found the path alive: a false OOM report and a
    // watch that never ended, for about one lifecycle in four.
    it('reports no OOM and lets go of its eventfd when the cgroup is removed and made again under its name', async () => {
      const dir = join(mkdtempSync(join(V1_MEMORY, 'skiff-oom-')), 'again');
      const before = eventfds();
      let reports = 0;
      try {
        for (let i = 0; i < 10; i++) {
          mkdirSync(dir);
          expect(
            watchOom(ContainerCgroup.parse(`5:memory:${dir.slice(V1_MEMORY.length)}\n`, 1), () => reports++),
          ).toBeDefined();
          rmdirSync(dir);
          mkdirSync(dir);
          await new Promise((resolve) => setTimeout(resolve, 20));
          rmdirSync(dir);
        }
        await waitFor(
          () => `the eventfds to be closed (${eventfds() - before} open)`,
          () => eventfds() === before,
          5000,
        );
        expect(reports).toBe(0);
      } finally {
        rmSync(dir, { recursive: false, force: true });
        rmdirSync(dirname(dir));
      }
    });
  });
