import { InternalError } from '../../../../../domain/shared/errors';
import { TaskStats } from '../../../../../domain/shim/task-stats';

/** Limits at or above this mean "unlimited" (cgroup v1 writes 2^63 rounded down to a page, v2 "max"). */
const UNLIMITED = 2 ** 62;

type Json = Record<string, unknown>;

function record(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** A cgroup limit as TaskStats says it: 0 for none (v1's near-2^63, v2's `max`). */
export function limit(value: unknown): number {
  const n = num(value);
  return n >= UNLIMITED ? 0 : n;
}

/**
 * Reads the cgroup figures of `runc events --stats <id>` into TaskStats. runc reports both
 * cgroup versions in one shape; only the raw memory counters differ: v1 has `rss` /
 * `total_rss` (hierarchical), v2 has `anon`. Missing figures (runc omits zeros) are 0.
 */
export function parseRuncStats(output: string, subject: string): TaskStats {
  let event: Json;
  try {
    event = record(JSON.parse(output));
  } catch {
    throw new InternalError(`${subject}: runc events --stats printed no JSON`, 'RUNC.STATS');
  }
  const data = record(event.data);
  const cpu = record(record(data.cpu).usage);
  const memory = record(data.memory);
  const usage = record(memory.usage);
  const raw = record(memory.raw);
  const isV2 = 'anon' in raw;
  const rss = isV2 ? num(raw.anon) : num(raw.total_rss ?? raw.rss);
  const pids = record(data.pids);
  return {
    cpuUsageNs: num(cpu.total),
    cpuUserNs: num(cpu.user),
    cpuSystemNs: num(cpu.kernel),
    memoryRssBytes: rss,
    memoryUsageBytes: num(usage.usage),
    memoryLimitBytes: limit(usage.limit),
    pidsCurrent: num(pids.current),
    pidsLimit: limit(pids.limit),
  };
}
