import { AnyPayload, PidView, StatsView } from '../../../../application/shim/task/task-messages';
import { skiff } from '../proto/generated/skiff/v1/skiff';

/** containerd's messages, loaded only where they are read: skiff's own shim never evaluates them. */
function containerdMessages() {
  const cgroups =
    require('../proto/generated/containerd/cgroups-v1') as typeof import('../proto/generated/containerd/cgroups-v1');
  const runc = require('../proto/generated/containerd/runc') as typeof import('../proto/generated/containerd/runc');
  return { cg: cgroups.io.containerd.cgroups.v1, ProcessDetails: runc.containerd.runc.v1.ProcessDetails };
}

/**
 * Who reads the Any payloads of Pids (which exec a pid is) and Stats: skiff's own clients
 * (skiff.v1 messages), or containerd's tools, `ctr task ps` and `ctr task metrics`, which
 * decode containerd.runc.v1.ProcessDetails and io.containerd.cgroups.v1.Metrics. The same
 * figures either way; a reader decodes both, by type_url.
 */
export type PayloadFlavour = 'skiff' | 'containerd';

const PROCESS_DETAILS = {
  skiff: 'skiff.v1.ProcessDetails',
  containerd: 'containerd.runc.v1.ProcessDetails',
} as const;
const TASK_STATS = 'skiff.v1.TaskStats';
const CGROUPS_V1_METRICS = 'io.containerd.cgroups.v1.Metrics';

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

/** Stats' payload as a view; cgroup v1 metrics do not name the runtime (''). */
export function statsOf(payload: AnyPayload): StatsView {
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
