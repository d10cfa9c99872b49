import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  isUnifiedCgroupHost,
  parsePressure,
  readCgroupV2Metrics,
} from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/cgroup-v2-metrics';
import { ContainerCgroup } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/container-cgroup';
import { InternalError, NotFoundError } from '../../../../../../src/domain/shared/errors';

const TASK = 'task "web"';

/**
 * A cgroup v2 cgroup's files as the kernel writes them, in a directory the test makes under a
 * fixture root (this machine is cgroup v1; a real unified host is tested in a VM). The figures
 * expected are what containerd's cgroup2 Manager.Stat makes of the same files.
 */
describe('readCgroupV2Metrics (a cgroup v2 cgroup read as containerd reads it)', () => {
  let root: string;
  let dir: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'skiff-cgroup2-'));
    dir = join(root, 'system.slice', 'skiff-web.scope');
    mkdirSync(dir, { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function write(files: Record<string, string>): void {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  }

  const FULL = {
    'pids.current': '2\n',
    'pids.max': '128\n',
    'cpu.stat':
      'usage_usec 41203\nuser_usec 30100\nsystem_usec 11103\ncore_sched.force_idle_usec 0\n' +
      'nr_periods 7\nnr_throttled 2\nthrottled_usec 950\nnr_bursts 1\nburst_usec 30\n',
    'memory.stat':
      'anon 1331200\nfile 4096\nkernel 180224\nkernel_stack 32768\nslab 98304\nsock 0\nshmem 0\n' +
      'file_mapped 0\nfile_dirty 0\nfile_writeback 0\nanon_thp 0\ninactive_anon 1318912\nactive_anon 8192\n' +
      'inactive_file 4096\nactive_file 0\nunevictable 0\nslab_reclaimable 16384\nslab_unreclaimable 81920\n' +
      'pgfault 1203\npgmajfault 3\nworkingset_refault_anon 5\nworkingset_refault_file 6\n' +
      'workingset_activate_anon 7\nworkingset_activate_file 8\nworkingset_nodereclaim 0\npgrefill 0\n' +
      'pgscan 11\npgsteal 12\npgactivate 13\npgdeactivate 14\npglazyfree 0\npglazyfreed 0\n' +
      'thp_fault_alloc 0\nthp_collapse_alloc 0\n',
    'memory.current': '1523712\n',
    'memory.max': '67108864\n',
    'memory.peak': '2000000\n',
    'memory.swap.current': '4096\n',
    'memory.swap.max': 'max\n',
    'memory.swap.peak': '8192\n',
    'memory.events': 'low 0\nhigh 4\nmax 9\noom 1\noom_kill 1\noom_group_kill 0\n',
    'io.stat':
      '253:0 rbytes=1130496 wbytes=4096 rios=42 wios=1 dbytes=0 dios=0\n' +
      '8:0 rbytes=1130496 wbytes=4096 rios=42 wios=1 dbytes=0 dios=0\n',
  };

  it('reads every figure containerd fills: pids, cpu.stat, memory.stat and its files, memory.events, io.stat', () => {
    write(FULL);
    const m = readCgroupV2Metrics(dir, TASK);
    expect(m.pids).toEqual({ current: 2, limit: 128 });
    expect(m.cpu).toEqual({
      usage_usec: 41203,
      user_usec: 30100,
      system_usec: 11103,
      nr_periods: 7,
      nr_throttled: 2,
      throttled_usec: 950,
      nr_bursts: 1,
      burst_usec: 30,
    });
    expect(m.memory).toMatchObject({
      anon: 1331200,
      file: 4096,
      kernel_stack: 32768,
      inactive_anon: 1318912,
      slab_unreclaimable: 81920,
      pgfault: 1203,
      pgmajfault: 3,
      workingset_refault: 0,
      workingset_refault_anon: 5,
      workingset_activate_file: 8,
      pgdeactivate: 14,
      usage: 1523712,
      usage_limit: 67108864,
      max_usage: 2000000,
      swap_usage: 4096,
      swap_limit: 'max',
      swap_max_usage: 8192,
    });
    // memory.stat's keys that Metrics does not name (kernel) are not kept.
    expect(m.memory).not.toHaveProperty('kernel');
    expect(m.memory_events).toEqual({ low: 0, high: 4, max: 9, oom: 1, oom_kill: 1, oom_group_kill: 0 });
    expect(m.io).toEqual([
      { major: 253, minor: 0, rbytes: 1130496, wbytes: 4096, rios: 42, wios: 1 },
      { major: 8, minor: 0, rbytes: 1130496, wbytes: 4096, rios: 42, wios: 1 },
    ]);
  });

  it('reads the pressure files (PSI) as containerd does: some and full, each file absent where it cannot be read', () => {
    write({
      ...FULL,
      'cpu.pressure':
        'some avg10=1.50 avg60=0.25 avg300=0.00 total=12345\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n',
      'memory.pressure':
        'some avg10=0.00 avg60=0.00 avg300=0.00 total=7\nfull avg10=0.01 avg60=0.00 avg300=0.00 total=3\n',
    });
    expect(readCgroupV2Metrics(dir, TASK).pressure).toEqual({
      cpu: {
        some: { avg10: 1.5, avg60: 0.25, avg300: 0, total: 12345 },
        full: { avg10: 0, avg60: 0, avg300: 0, total: 0 },
      },
      memory: {
        some: { avg10: 0, avg60: 0, avg300: 0, total: 7 },
        full: { avg10: 0.01, avg60: 0, avg300: 0, total: 3 },
      },
    });
    // A kernel without PSI has none of the files: no pressure at all.
    rmSync(join(dir, 'cpu.pressure'));
    rmSync(join(dir, 'memory.pressure'));
    expect(readCgroupV2Metrics(dir, TASK)).not.toHaveProperty('pressure');
  });

  it('takes a pressure file it cannot read whole as none, as containerd logs it and leaves it nil', () => {
    expect(parsePressure('some avg10=x avg60=0.00 avg300=0.00 total=1\n')).toBeUndefined();
    expect(parsePressure('some avg10=0.00 total=-1\n')).toBeUndefined();
    expect(parsePressure('some avg10\n')).toBeUndefined();
    expect(parsePressure('some total=18446744073709551616\n')).toBeUndefined();
    // Keys and lines it does not know pass by; an empty file is PSI with neither line.
    expect(parsePressure('some avg10=0.10 extra=9 total=4\nmore avg10=bad\n')).toEqual({
      some: { avg10: 0.1, avg60: 0, avg300: 0, total: 4 },
    });
    expect(parsePressure('')).toEqual({});
  });

  it('parses any pressure file text without throwing: numbers that Metrics can carry, or none', () => {
    const field = fc.oneof(
      fc
        .tuple(fc.constantFrom('avg10', 'avg60', 'avg300'), fc.oneof(fc.double(), fc.string({ maxLength: 6 })))
        .map(([k, v]) => `${k}=${v}`),
      fc
        .tuple(fc.constant('total'), fc.oneof(fc.bigInt({ min: -1n, max: 2n ** 65n }), fc.string({ maxLength: 6 })))
        .map(([k, v]) => `${k}=${v}`),
      fc.string({ maxLength: 10 }),
    );
    const line = fc
      .tuple(fc.constantFrom('some', 'full', 'other', ''), fc.array(field, { maxLength: 5 }))
      .map(([kind, fields]) => [kind, ...fields].join(' '));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 4 }), (lines) => {
        const stats = parsePressure(lines.join('\n'));
        for (const data of Object.values(stats ?? {})) {
          expect([data.avg10, data.avg60, data.avg300].every(Number.isFinite)).toBe(true);
          expect(Number.isInteger(data.total) && data.total >= 0 && data.total <= 2 ** 64).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('keeps `max` limits as max (memory.max, pids.max)', () => {
    write({ ...FULL, 'memory.max': 'max\n', 'pids.max': 'max\n' });
    const m = readCgroupV2Metrics(dir, TASK);
    expect([m.memory.usage_limit, m.pids.limit, m.memory.swap_limit]).toEqual(['max', 'max', 'max']);
  });

  it('reads a missing file as 0: no swap accounting, no io controller, no memory.peak (Linux < 5.19)', () => {
    const files: Record<string, string> = { ...FULL };
    for (const name of ['memory.swap.current', 'memory.swap.max', 'memory.swap.peak', 'memory.peak', 'io.stat'])
      delete files[name];
    write(files);
    const m = readCgroupV2Metrics(dir, TASK);
    expect(m.memory).toMatchObject({ usage: 1523712, swap_usage: 0, swap_limit: 0, max_usage: 0, swap_max_usage: 0 });
    expect(m.io).toEqual([]);
  });

  it('without memory.events has no memory_events; without memory.stat, a memory part of zeros (as containerd)', () => {
    const files: Record<string, string> = { ...FULL };
    delete files['memory.events'];
    delete files['memory.stat'];
    write(files);
    const m = readCgroupV2Metrics(dir, TASK);
    expect(m).not.toHaveProperty('memory_events');
    expect(Object.values(m.memory).every((v) => v === 0)).toBe(true);
    expect(m.cpu.usage_usec).toBe(41203);
  });

  // containerd's runc shim: Stats without a cgroup is NotFound "cgroup does not exist"
  // (cmd/containerd-shim-runc-v2/task/service.go Stats); a reading of zeros would pass for an idle container.
  it('answers NotFound "cgroup does not exist" naming the task for a cgroup that is gone', () => {
    const gone = () => readCgroupV2Metrics(join(root, 'gone'), TASK);
    expect(gone).toThrow(NotFoundError);
    expect(gone).toThrow('task "web": cgroup does not exist');
  });

  it('reads an existing cgroup without any of its files as zeros', () => {
    const m = readCgroupV2Metrics(dir, TASK);
    expect(m.pids).toEqual({ current: 0, limit: 0 });
    expect(Object.values(m.cpu).every((v) => v === 0)).toBe(true);
    expect(m.io).toEqual([]);
    expect(m).not.toHaveProperty('memory_events');
  });

  it('takes a negative count as 0 and fails on a line of a keyed file it cannot read', () => {
    write({ ...FULL, 'memory.current': '-4096\n' });
    expect(readCgroupV2Metrics(dir, TASK).memory.usage).toBe(0);
    write({ 'cpu.stat': 'usage_usec 1\nnonsense\n' });
    expect(() => readCgroupV2Metrics(dir, TASK)).toThrow(InternalError);
    write({ 'cpu.stat': 'usage_usec many\n' });
    expect(() => readCgroupV2Metrics(dir, TASK)).toThrow(/cpu\.stat/);
  });

  it('reads io.stat line by line as containerd does: unknown keys and bad values skipped, a bad device ends it', () => {
    write({
      'io.stat': '8:16 rbytes=10 wbytes=x rios=2 wios=3 dbytes=9\n\nnot-a-device foo=1\n8:x rbytes=1\n9:0 rbytes=1\n',
    });
    expect(readCgroupV2Metrics(dir, TASK).io).toEqual([
      { major: 8, minor: 16, rbytes: 10, wbytes: 0, rios: 2, wios: 3 },
    ]);
  });

  it("finds the cgroup's directory under an injected root from /proc/<pid>/cgroup", () => {
    write(FULL);
    const cgroup = ContainerCgroup.parse('0::/system.slice/skiff-web.scope\n', 1, root);
    expect(cgroup.unifiedDir).toBe(dir);
    expect(readCgroupV2Metrics(cgroup.unifiedDir as string, TASK).pids.current).toBe(2);
  });

  it('does not take a directory that is not a cgroup2 file system for a unified host', () => {
    expect(isUnifiedCgroupHost(root)).toBe(false);
    expect(isUnifiedCgroupHost(join(root, 'missing'))).toBe(false);
  });
});

/**
 * The cgroup files are the kernel's, but a reader of them must not turn odd text into a crash of
 * the serving process or a figure that is not a count: any text in any file reads as counts (or
 * `max` for a limit), or fails as the InternalError of a keyed line it cannot read.
 */
describe('readCgroupV2Metrics on arbitrary file contents (property)', () => {
  const FILES = [
    'pids.current',
    'pids.max',
    'cpu.stat',
    'memory.stat',
    'memory.current',
    'memory.max',
    'memory.peak',
    'memory.swap.current',
    'memory.swap.max',
    'memory.swap.peak',
    'memory.events',
    'io.stat',
  ];
  // Up to 2^70: past uint64, which the kernel never writes and containerd's ParseUint refuses.
  const digits = fc.bigInt({ min: 0n, max: 2n ** 70n }).map(String);
  const line = fc.oneof(
    digits,
    fc.tuple(fc.constantFrom('usage_usec', 'anon', 'oom_kill'), digits).map(([k, v]) => `${k} ${v}`),
    fc.string({ unit: 'binary-ascii', maxLength: 30 }),
    fc
      .tuple(fc.constantFrom('usage_usec', 'anon', 'oom_kill', 'x'), fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }))
      .map(([k, v]) => `${k} ${v}`),
    fc
      .tuple(fc.nat(300), fc.nat(300), fc.constantFrom('rbytes', 'wios', 'dbytes'), fc.string({ maxLength: 8 }))
      .map(([a, b, k, v]) => `${a}:${b} ${k}=${v}`),
  );
  const contents = fc.dictionary(
    fc.constantFrom(...FILES),
    fc.array(line, { maxLength: 6 }).map((l) => l.join('\n')),
  );
  /** A uint64, as io.containerd.cgroups.v2.Metrics carries it (2^64 - 1 is 2 ** 64 as a double). */
  const isCount = (v: unknown) => typeof v === 'number' && v >= 0 && v <= 2 ** 64;
  const isLimit = (v: unknown) => v === 'max' || isCount(v);

  it('reads counts and limits, or fails as an InternalError', () => {
    const root = mkdtempSync(join(tmpdir(), 'skiff-cgroup2-prop-'));
    try {
      fc.assert(
        fc.property(contents, (files) => {
          const dir = mkdtempSync(join(root, 'c-'));
          for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
          let m;
          try {
            m = readCgroupV2Metrics(dir, TASK);
          } catch (err) {
            expect(err).toBeInstanceOf(InternalError);
            return;
          }
          expect([m.pids.current, ...Object.values(m.cpu)].every(isCount)).toBe(true);
          const { usage_limit, swap_limit, ...memory } = m.memory;
          expect(Object.values(memory).every(isCount)).toBe(true);
          expect([m.pids.limit, usage_limit, swap_limit].every(isLimit)).toBe(true);
          expect(Object.values(m.memory_events ?? {}).every(isCount)).toBe(true);
          expect(m.io.flatMap((e) => Object.values(e)).every(isCount)).toBe(true);
        }),
        { numRuns: 200 },
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
