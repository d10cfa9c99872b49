import { existsSync, readFileSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { InternalError, NotFoundError } from '../../../../../domain/shared/errors';
import {
  CgroupLimit,
  CgroupV2Metrics,
  CPU_STAT_KEYS,
  IoEntry,
  MEMORY_EVENT_KEYS,
  MEMORY_STAT_KEYS,
  PsiData,
  PsiStats,
} from '../../../../../domain/shim/task-stats';
import { CGROUP_ROOT } from './container-cgroup';

/** statfs(2)'s f_type of a cgroup2 file system (linux/magic.h CGROUP2_SUPER_MAGIC). */
const CGROUP2_SUPER_MAGIC = 0x63677270;

const unifiedHosts = new Map<string, boolean>();

/**
 * Whether the host is cgroup v2 only: `root` is a cgroup2 file system. containerd's cgroups
 * Mode() (utils.go) says Unified on the same test, once per process; a hybrid host (v1
 * controllers at /sys/fs/cgroup, cgroup2 at /sys/fs/cgroup/unified) is not unified.
 */
export function isUnifiedCgroupHost(root: string = CGROUP_ROOT): boolean {
  let unified = unifiedHosts.get(root);
  if (unified === undefined) {
    try {
      unified = statfsSync(root).type === CGROUP2_SUPER_MAGIC;
    } catch {
      unified = false;
    }
    unifiedHosts.set(root, unified);
  }
  return unified;
}

/**
 * A cgroup v2 cgroup's figures read from its directory, figure by figure as containerd's
 * cgroup2 Manager.Stat does (cgroup2/manager.go, utils.go): a missing file reads as 0 (no
 * memory_events at all when memory.events is missing or empty, a zero memory part when
 * memory.stat is), a `max` limit stays `max`, a line of cpu.stat, memory.stat or
 * memory.events that is not `<key> <count>` fails the whole reading. A cgroup that is gone
 * (a systemd scope removed once empty, or removed by hand) is NotFound `cgroup does not exist`,
 * as containerd's runc shim answers Stats without a cgroup, not a reading of zeros.
 */
export function readCgroupV2Metrics(dir: string, subject: string): CgroupV2Metrics {
  if (!existsSync(dir)) throw new NotFoundError(`${subject}: cgroup does not exist (${dir})`, 'CGROUP.GONE');
  const cpu = readKeyed(dir, 'cpu.stat') ?? new Map<string, number>();
  const events = readKeyed(dir, 'memory.events');
  return {
    pids: { current: count(readValue(join(dir, 'pids.current'))), limit: readValue(join(dir, 'pids.max')) },
    cpu: pick(CPU_STAT_KEYS, cpu),
    memory: readMemory(dir),
    ...(events !== undefined && events.size > 0 ? { memory_events: pick(MEMORY_EVENT_KEYS, events) } : {}),
    io: readIo(dir),
    ...readPressure(dir),
  };
}

/** The three pressure files; no `pressure` at all where none can be read (as on a kernel without PSI). */
function readPressure(dir: string): Pick<CgroupV2Metrics, 'pressure'> {
  const pressure = {
    ...optional('cpu', readPressureFile(join(dir, 'cpu.pressure'))),
    ...optional('memory', readPressureFile(join(dir, 'memory.pressure'))),
    ...optional('io', readPressureFile(join(dir, 'io.pressure'))),
  };
  return Object.keys(pressure).length === 0 ? {} : { pressure };
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function readPressureFile(file: string): PsiStats | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'latin1');
  } catch {
    return undefined; // missing, or EOPNOTSUPP where PSI is off: containerd leaves it nil too
  }
  return parsePressure(text);
}

/**
 * A pressure file's text, as containerd's cgroup2 getStatPSIFromFile reads it: `some` and
 * `full` lines of `avg10=.. avg60=.. avg300=.. total=..` (other lines and keys pass by); a
 * field that is not `key=value`, an average that is no number or a total that is no uint64
 * makes the whole file unread (undefined).
 */
export function parsePressure(text: string): PsiStats | undefined {
  const stats: { some?: PsiData; full?: PsiData } = {};
  for (const line of text.split('\n')) {
    const [kind, ...fields] = line.trim().split(/\s+/);
    if (kind !== 'some' && kind !== 'full') continue;
    const data = { avg10: 0, avg60: 0, avg300: 0, total: 0 };
    for (const field of fields) {
      const at = field.indexOf('=');
      if (at < 0) return undefined;
      const key = field.slice(0, at);
      const value = field.slice(at + 1);
      if (key === 'total') {
        const total = /^\d+$/.test(value) ? parseCount(value) : undefined;
        if (total === undefined) return undefined;
        data.total = total;
      } else if (key === 'avg10' || key === 'avg60' || key === 'avg300') {
        const avg = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value) ? Number(value) : NaN;
        if (!Number.isFinite(avg)) return undefined;
        data[key] = avg;
      }
    }
    stats[kind] = data;
  }
  return stats;
}

function readMemory(dir: string): CgroupV2Metrics['memory'] {
  const stat = readKeyed(dir, 'memory.stat');
  const value = (file: string) => (stat === undefined ? 0 : readValue(join(dir, file)));
  return {
    ...pick(MEMORY_STAT_KEYS, stat ?? new Map<string, number>()),
    usage: count(value('memory.current')),
    usage_limit: value('memory.max'),
    max_usage: count(value('memory.peak')),
    swap_usage: count(value('memory.swap.current')),
    swap_limit: value('memory.swap.max'),
    swap_max_usage: count(value('memory.swap.peak')),
  };
}

function pick<K extends string>(keys: readonly K[], values: ReadonlyMap<string, number>): Record<K, number> {
  return Object.fromEntries(keys.map((key) => [key, values.get(key) ?? 0])) as Record<K, number>;
}

/** A file of one value, `max` or a count; 0 when missing or unreadable, a negative count 0. */
function readValue(file: string): CgroupLimit {
  let text: string;
  try {
    text = readFileSync(file, 'latin1').trim();
  } catch {
    return 0;
  }
  return text === 'max' ? 'max' : (parseCount(text) ?? 0);
}

/** A count's file never says `max`. */
function count(value: CgroupLimit): number {
  return value === 'max' ? 0 : value;
}

const MAX_UINT64 = 2n ** 64n - 1n;

/**
 * A decimal count; a negative one is 0 (the kernel can report one); undefined when not a number,
 * or past uint64 (containerd's strconv.ParseUint refuses it; Metrics could not carry it).
 */
function parseCount(text: string): number | undefined {
  if (/^\d+$/.test(text)) return text.length <= 20 && BigInt(text) <= MAX_UINT64 ? Number(text) : undefined;
  if (/^-\d+$/.test(text)) return 0;
  return undefined;
}

/** A file of `<key> <count>` lines; undefined when missing. */
function readKeyed(dir: string, name: string): Map<string, number> | undefined {
  const file = join(dir, name);
  let text: string;
  try {
    text = readFileSync(file, 'latin1');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InternalError(`cannot read ${file}: ${(err as Error).message}`, 'CGROUP.STATS', { cause: err });
  }
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const fields = line.trim().split(/\s+/);
    const value = fields.length === 2 ? parseCount(fields[1]) : undefined;
    if (value === undefined)
      throw new InternalError(`${file}: cannot read the line ${JSON.stringify(line)}`, 'CGROUP.STATS');
    values.set(fields[0], value);
  }
  return values;
}

/**
 * io.stat: `<major>:<minor> rbytes=.. wbytes=.. rios=.. wios=.. ..` per device; a pair that
 * is not a count is left out, a device number that is not one ends the list (as containerd's
 * readIoStats does).
 */
function readIo(dir: string): IoEntry[] {
  let text: string;
  try {
    text = readFileSync(join(dir, 'io.stat'), 'latin1');
  } catch {
    return [];
  }
  const entries: IoEntry[] = [];
  for (const line of text.split('\n')) {
    const [device, ...pairs] = line.split(' ');
    const numbers = device.split(':');
    if (pairs.length === 0 || numbers.length !== 2) continue;
    if (!numbers.every((n) => /^\d+$/.test(n))) break;
    const entry = { major: Number(numbers[0]), minor: Number(numbers[1]), rbytes: 0, wbytes: 0, rios: 0, wios: 0 };
    for (const pair of pairs) {
      const [key, value, ...rest] = pair.split('=');
      const n = rest.length > 0 || value === undefined || !/^\d+$/.test(value) ? undefined : parseCount(value);
      if (n !== undefined && (key === 'rbytes' || key === 'wbytes' || key === 'rios' || key === 'wios')) entry[key] = n;
    }
    entries.push(entry);
  }
  return entries;
}
