/**
 * A cgroup v2 limit as its file says it: a number, or `max` (no limit). containerd's cgroup2
 * manager writes `max` as 2^64 - 1 in io.containerd.cgroups.v2.Metrics.
 */
export type CgroupLimit = number | 'max';

/** The keys of a cgroup's cpu.stat that containerd reports (cgroup2/manager.go readCPUStats). */
export const CPU_STAT_KEYS = [
  'usage_usec',
  'user_usec',
  'system_usec',
  'nr_periods',
  'nr_throttled',
  'throttled_usec',
  'nr_bursts',
  'burst_usec',
] as const;

/** The keys of a cgroup's memory.stat that containerd reports (cgroup2/manager.go readMemoryStats). */
export const MEMORY_STAT_KEYS = [
  'anon',
  'file',
  'kernel_stack',
  'slab',
  'sock',
  'shmem',
  'file_mapped',
  'file_dirty',
  'file_writeback',
  'anon_thp',
  'inactive_anon',
  'active_anon',
  'inactive_file',
  'active_file',
  'unevictable',
  'slab_reclaimable',
  'slab_unreclaimable',
  'pgfault',
  'pgmajfault',
  'workingset_refault',
  'workingset_activate',
  'workingset_nodereclaim',
  'pgrefill',
  'pgscan',
  'pgsteal',
  'pgactivate',
  'pgdeactivate',
  'pglazyfree',
  'pglazyfreed',
  'thp_fault_alloc',
  'thp_collapse_alloc',
  'workingset_refault_anon',
  'workingset_refault_file',
  'workingset_activate_anon',
  'workingset_activate_file',
] as const;

/** The keys of a cgroup's memory.events (cgroup2/manager.go readMemoryEvents). */
export const MEMORY_EVENT_KEYS = ['low', 'high', 'max', 'oom', 'oom_kill', 'oom_group_kill'] as const;

type CpuStatKey = (typeof CPU_STAT_KEYS)[number];
type MemoryStatKey = (typeof MEMORY_STAT_KEYS)[number];
type MemoryEventKey = (typeof MEMORY_EVENT_KEYS)[number];

/** One line of io.stat: a device and what was read and written on it. */
export interface IoEntry {
  readonly major: number;
  readonly minor: number;
  readonly rbytes: number;
  readonly wbytes: number;
  readonly rios: number;
  readonly wios: number;
}

/** One line of a pressure file: the share of time stalled (%) over 10, 60 and 300 s, and the total stalled in µs. */
export interface PsiData {
  readonly avg10: number;
  readonly avg60: number;
  readonly avg300: number;
  readonly total: number;
}

/** A pressure file (the kernel's PSI): `some` and, where the kernel gives it, `full`. */
export interface PsiStats {
  readonly some?: PsiData;
  readonly full?: PsiData;
}

/**
 * A cgroup v2 cgroup's figures as containerd's cgroup2 Manager.Stat reads them, named as
 * io.containerd.cgroups.v2.Metrics names them (the kernel's own keys). Rdma and hugetlb are
 * left out.
 */
export interface CgroupV2Metrics {
  /** pids.current, pids.max. */
  readonly pids: { readonly current: number; readonly limit: CgroupLimit };
  /** cpu.stat; microseconds. */
  readonly cpu: Readonly<Record<CpuStatKey, number>>;
  /** memory.stat, and memory.current, .max, .peak, .swap.current, .swap.max, .swap.peak; bytes. */
  readonly memory: Readonly<Record<MemoryStatKey, number>> & {
    readonly usage: number;
    readonly usage_limit: CgroupLimit;
    readonly max_usage: number;
    readonly swap_usage: number;
    readonly swap_limit: CgroupLimit;
    readonly swap_max_usage: number;
  };
  /** memory.events; absent where the file is missing or empty, as containerd leaves it. */
  readonly memory_events?: Readonly<Record<MemoryEventKey, number>>;
  /** io.stat, one entry per device. */
  readonly io: readonly IoEntry[];
  /**
   * cpu.pressure, memory.pressure and io.pressure (Metrics' cpu.psi, memory.psi, io.psi), each
   * absent where its file cannot be read (a kernel without PSI) or is not what the kernel writes.
   */
  readonly pressure?: { readonly cpu?: PsiStats; readonly memory?: PsiStats; readonly io?: PsiStats };
}

/** Resource figures of a task (proto skiff.v1.TaskStats). 0 = unknown or unlimited. */
export interface TaskStats {
  readonly cpuUsageNs: number;
  readonly cpuUserNs: number;
  readonly cpuSystemNs: number;
  readonly memoryRssBytes: number;
  readonly memoryUsageBytes: number;
  readonly memoryLimitBytes: number;
  readonly pidsCurrent: number;
  readonly pidsLimit: number;
  /**
   * Where the figures were read from a cgroup v2 cgroup (a unified-only host): all of that
   * cgroup's figures, which containerd's tools get as io.containerd.cgroups.v2.Metrics. The
   * figures above are drawn from them (taskStatsOf).
   */
  readonly cgroupV2?: CgroupV2Metrics;
}

/** 0 for no limit, as skiff.v1.TaskStats says it. */
function limitOf(limit: CgroupLimit): number {
  return limit === 'max' ? 0 : limit;
}

/**
 * A task's figures from its cgroup v2 cgroup: CPU time from cpu.stat's microseconds, RSS
 * as memory.stat's `anon` (what runc reports for a v2 cgroup), usage and limit from
 * memory.current and memory.max, pids from pids.current and pids.max.
 */
export function taskStatsOf(cgroup: CgroupV2Metrics): TaskStats {
  return {
    cpuUsageNs: cgroup.cpu.usage_usec * 1000,
    cpuUserNs: cgroup.cpu.user_usec * 1000,
    cpuSystemNs: cgroup.cpu.system_usec * 1000,
    memoryRssBytes: cgroup.memory.anon,
    memoryUsageBytes: cgroup.memory.usage,
    memoryLimitBytes: limitOf(cgroup.memory.usage_limit),
    pidsCurrent: cgroup.pids.current,
    pidsLimit: limitOf(cgroup.pids.limit),
    cgroupV2: cgroup,
  };
}
