import { AnyPayload, PidView, StatsView } from '../../../../application/shim/task/task-messages';
import {
  CgroupLimit,
  CgroupV2Metrics,
  CPU_STAT_KEYS,
  MEMORY_EVENT_KEYS,
  MEMORY_STAT_KEYS,
  PsiData,
  PsiStats,
  taskStatsOf,
} from '../../../../domain/shim/task-stats';
import { skiff } from '../proto/generated/skiff/v1/skiff';

/** containerd's messages, loaded only where they are read: skiff's own shim never evaluates them. */
function containerdMessages() {
  const cgroups =
    require('../proto/generated/containerd/cgroups-v1') as typeof import('../proto/generated/containerd/cgroups-v1');
  const cgroups2 =
    require('../proto/generated/containerd/cgroups-v2') as typeof import('../proto/generated/containerd/cgroups-v2');
  const runc = require('../proto/generated/containerd/runc') as typeof import('../proto/generated/containerd/runc');
  return {
    cg: cgroups.io.containerd.cgroups.v1,
    cg2: cgroups2.io.containerd.cgroups.v2,
    ProcessDetails: runc.containerd.runc.v1.ProcessDetails,
  };
}

/**
 * Who reads the Any payloads of Pids (which exec a pid is) and Stats: skiff's own clients
 * (skiff.v1 messages), or containerd's tools, `ctr task ps` and `ctr task metrics`, which
 * decode containerd.runc.v1.ProcessDetails and io.containerd.cgroups.v1.Metrics, or
 * io.containerd.cgroups.v2.Metrics where the figures were read from a cgroup v2 cgroup (as
 * containerd's runc shim answers on a unified host). The same figures either way; a reader
 * decodes each, by type_url.
 */
export type PayloadFlavour = 'skiff' | 'containerd';

const PROCESS_DETAILS = {
  skiff: 'skiff.v1.ProcessDetails',
  containerd: 'containerd.runc.v1.ProcessDetails',
} as const;
const TASK_STATS = 'skiff.v1.TaskStats';
const CGROUPS_V1_METRICS = 'io.containerd.cgroups.v1.Metrics';
const CGROUPS_V2_METRICS = 'io.containerd.cgroups.v2.Metrics';
/** A limit of `max` as containerd's cgroup2 manager writes it: 2^64 - 1 (math.MaxUint64). */
const MAX_UINT64 = '18446744073709551615';

/** Pids' info for one pid: the exec id, when the pid is an exec's. */
export function processInfo(flavour: PayloadFlavour, execId: string | undefined): AnyPayload | undefined {
  if (execId === undefined) return undefined;
  const details =
    flavour === 'skiff'
      ? new skiff.v1.ProcessDetails({ exec_id: execId })
      : new (containerdMessages().ProcessDetails)({ exec_id: execId });
  return { typeUrl: PROCESS_DETAILS[flavour], value: details.serialize() };
}

export function execIdOf(info: AnyPayload | undefined): PidView['execId'] {
  switch (info?.typeUrl) {
    case PROCESS_DETAILS.skiff:
      return skiff.v1.ProcessDetails.deserialize(info.value).exec_id;
    case PROCESS_DETAILS.containerd:
      return containerdMessages().ProcessDetails.deserialize(info.value).exec_id;
    default:
      return undefined;
  }
}

/** skiff.v1.TaskStats: every figure of the view, the runtime's name included. */
export function taskStatsMessage(s: StatsView): skiff.v1.TaskStats {
  return new skiff.v1.TaskStats({
    cpu_usage_ns: s.cpuUsageNs,
    cpu_user_ns: s.cpuUserNs,
    cpu_system_ns: s.cpuSystemNs,
    memory_rss_bytes: s.memoryRssBytes,
    memory_usage_bytes: s.memoryUsageBytes,
    memory_limit_bytes: s.memoryLimitBytes,
    pids_current: s.pidsCurrent,
    pids_limit: s.pidsLimit,
    runtime: s.runtime,
  });
}

export function statsPayload(flavour: PayloadFlavour, s: StatsView): AnyPayload {
  if (flavour === 'skiff') return { typeUrl: TASK_STATS, value: taskStatsMessage(s).serialize() };
  if (s.cgroupV2 !== undefined) return { typeUrl: CGROUPS_V2_METRICS, value: cgroupV2Message(s.cgroupV2).serialize() };
  const { cg } = containerdMessages();
  const metrics = new cg.Metrics({
    pids: new cg.PidsStat({ current: s.pidsCurrent, limit: s.pidsLimit }),
    cpu: new cg.CPUStat({ usage: new cg.CPUUsage({ total: s.cpuUsageNs, kernel: s.cpuSystemNs, user: s.cpuUserNs }) }),
    memory: new cg.MemoryStat({
      rss: s.memoryRssBytes,
      usage: new cg.MemoryEntry({ usage: s.memoryUsageBytes, limit: s.memoryLimitBytes }),
    }),
  });
  return { typeUrl: CGROUPS_V1_METRICS, value: metrics.serialize() };
}

/** io.containerd.cgroups.v2.Metrics: a cgroup v2 cgroup's figures, named alike on both sides. */
function cgroupV2Message(m: CgroupV2Metrics) {
  const { cg2 } = containerdMessages();
  return new cg2.Metrics({
    pids: new cg2.PidsStat({ current: m.pids.current, limit: limitField(m.pids.limit) }),
    cpu: new cg2.CPUStat({ ...m.cpu, ...psiField(m.pressure?.cpu) }),
    memory: new cg2.MemoryStat({
      ...m.memory,
      ...psiField(m.pressure?.memory),
      usage_limit: limitField(m.memory.usage_limit),
      swap_limit: limitField(m.memory.swap_limit),
    }),
    io: new cg2.IOStat({
      usage: m.io.map((entry) => new cg2.IOEntry({ ...entry })),
      ...psiField(m.pressure?.io),
    }),
    ...(m.memory_events === undefined ? {} : { memory_events: new cg2.MemoryEvents({ ...m.memory_events }) }),
  });
}

/** A pressure file's figures as Metrics' PSIStats, or no field where it was not read. */
function psiField(stats: PsiStats | undefined) {
  if (stats === undefined) return {};
  const { cg2 } = containerdMessages();
  return {
    psi: new cg2.PSIStats({
      ...(stats.some === undefined ? {} : { some: new cg2.PSIData({ ...stats.some }) }),
      ...(stats.full === undefined ? {} : { full: new cg2.PSIData({ ...stats.full }) }),
    }),
  };
}

function cgroupV2Of(value: Uint8Array): CgroupV2Metrics {
  const { cg2 } = containerdMessages();
  const m = cg2.Metrics.deserialize(value);
  const pids = m.has_pids ? m.pids : new cg2.PidsStat();
  const cpu = m.has_cpu ? m.cpu : new cg2.CPUStat();
  const memory = m.has_memory ? m.memory : new cg2.MemoryStat();
  return {
    pids: { current: pids.current, limit: limitOf(pids.limit) },
    cpu: figures(CPU_STAT_KEYS, cpu),
    memory: {
      ...figures(MEMORY_STAT_KEYS, memory),
      usage: memory.usage,
      usage_limit: limitOf(memory.usage_limit),
      max_usage: memory.max_usage,
      swap_usage: memory.swap_usage,
      swap_limit: limitOf(memory.swap_limit),
      swap_max_usage: memory.swap_max_usage,
    },
    ...(m.has_memory_events ? { memory_events: figures(MEMORY_EVENT_KEYS, m.memory_events) } : {}),
    io: (m.has_io ? m.io.usage : []).map((e) => ({
      major: e.major,
      minor: e.minor,
      rbytes: e.rbytes,
      wbytes: e.wbytes,
      rios: e.rios,
      wios: e.wios,
    })),
    ...pressureOf({
      cpu: m.has_cpu && cpu.has_psi ? cpu.psi : undefined,
      memory: m.has_memory && memory.has_psi ? memory.psi : undefined,
      io: m.has_io && m.io.has_psi ? m.io.psi : undefined,
    }),
  };
}

type PsiMessage = { has_some: boolean; some: PsiData; has_full: boolean; full: PsiData };

/** Metrics' three PSIStats as the view's `pressure`; none where no PSIStats came. */
function pressureOf(psi: Record<'cpu' | 'memory' | 'io', PsiMessage | undefined>): Pick<CgroupV2Metrics, 'pressure'> {
  const data = (d: PsiData): PsiData => ({ avg10: d.avg10, avg60: d.avg60, avg300: d.avg300, total: d.total });
  const stats = (p: PsiMessage): PsiStats => ({
    ...(p.has_some ? { some: data(p.some) } : {}),
    ...(p.has_full ? { full: data(p.full) } : {}),
  });
  const entries = Object.entries(psi).filter((e): e is [string, PsiMessage] => e[1] !== undefined);
  return entries.length === 0 ? {} : { pressure: Object.fromEntries(entries.map(([k, p]) => [k, stats(p)])) };
}

function figures<K extends string>(keys: readonly K[], from: Readonly<Record<K, number>>): Record<K, number> {
  return Object.fromEntries(keys.map((key) => [key, from[key]])) as Record<K, number>;
}

function limitField(limit: CgroupLimit): string {
  return limit === 'max' ? MAX_UINT64 : String(limit);
}

function limitOf(field: string): CgroupLimit {
  return field === MAX_UINT64 ? 'max' : Number(field);
}

/** Stats' payload as a view; cgroup metrics do not name the runtime (''). */
export function statsOf(payload: AnyPayload): StatsView {
  if (payload.typeUrl === CGROUPS_V2_METRICS) return { ...taskStatsOf(cgroupV2Of(payload.value)), runtime: '' };
  if (payload.typeUrl === CGROUPS_V1_METRICS) {
    const m = containerdMessages().cg.Metrics.deserialize(payload.value);
    return {
      cpuUsageNs: m.cpu.usage.total,
      cpuUserNs: m.cpu.usage.user,
      cpuSystemNs: m.cpu.usage.kernel,
      memoryRssBytes: m.memory.rss,
      memoryUsageBytes: m.memory.usage.usage,
      memoryLimitBytes: m.memory.usage.limit,
      pidsCurrent: m.pids.current,
      pidsLimit: m.pids.limit,
      runtime: '',
    };
  }
  const s = skiff.v1.TaskStats.deserialize(payload.value);
  return {
    cpuUsageNs: s.cpu_usage_ns,
    cpuUserNs: s.cpu_user_ns,
    cpuSystemNs: s.cpu_system_ns,
    memoryRssBytes: s.memory_rss_bytes,
    memoryUsageBytes: s.memory_usage_bytes,
    memoryLimitBytes: s.memory_limit_bytes,
    pidsCurrent: s.pids_current,
    pidsLimit: s.pids_limit,
    runtime: s.runtime,
  };
}
