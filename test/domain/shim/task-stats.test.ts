import { CgroupV2Metrics, CPU_STAT_KEYS, MEMORY_STAT_KEYS, taskStatsOf } from '../../../src/domain/shim/task-stats';

function zeros<K extends string>(keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
}

const CGROUP: CgroupV2Metrics = {
  pids: { current: 3, limit: 'max' },
  cpu: { ...zeros(CPU_STAT_KEYS), usage_usec: 1500, user_usec: 1000, system_usec: 500 },
  memory: {
    ...zeros(MEMORY_STAT_KEYS),
    anon: 4096,
    file: 8192,
    usage: 16384,
    usage_limit: 'max',
    max_usage: 20000,
    swap_usage: 0,
    swap_limit: 'max',
    swap_max_usage: 0,
  },
  io: [],
};

describe('taskStatsOf (skiff.v1.TaskStats figures from a cgroup v2 reading)', () => {
  it('gives CPU time in ns, RSS as anon, usage as memory.current, and keeps the whole reading', () => {
    expect(taskStatsOf(CGROUP)).toEqual({
      cpuUsageNs: 1_500_000,
      cpuUserNs: 1_000_000,
      cpuSystemNs: 500_000,
      memoryRssBytes: 4096,
      memoryUsageBytes: 16384,
      memoryLimitBytes: 0,
      pidsCurrent: 3,
      pidsLimit: 0,
      cgroupV2: CGROUP,
    });
  });

  it('passes a set limit on, `max` as 0 (unlimited)', () => {
    const limited = { ...CGROUP, pids: { current: 3, limit: 64 }, memory: { ...CGROUP.memory, usage_limit: 1 << 20 } };
    expect(taskStatsOf(limited)).toMatchObject({ memoryLimitBytes: 1 << 20, pidsLimit: 64 });
  });
});
