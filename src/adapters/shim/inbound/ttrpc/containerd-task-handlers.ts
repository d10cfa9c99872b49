import { TaskService } from '../../../../application/shim/task/task-service';
import { io } from '../../wire/proto/generated/containerd/cgroups-v1';
import { containerd } from '../../wire/proto/generated/containerd/runc';
import { task } from '../../wire/proto/generated/task/v2/shim';
import { v1 } from '../../wire/proto/generated/v1/types/task';
import { toAny } from '../../wire/proto-mapping';
import { TaskHandlers, taskHandlers, unary } from '../task-rpc/task-handlers';

const pb = task.v2;
const cg = io.containerd.cgroups.v1;

/**
 * The task service as containerd's tools read it: the shared handlers, except that Pids
 * marks execs with containerd.runc.v1.ProcessDetails and Stats answers cgroup v1 metrics
 * (io.containerd.cgroups.v1.Metrics), the payloads `ctr task ps` and `ctr task metrics`
 * decode. The same figures as skiff's own payloads, in containerd's messages.
 */
export function containerdTaskHandlers(service: TaskService): TaskHandlers {
  return new Map([
    ...taskHandlers(service),
    unary('Pids', async (r: task.v2.PidsRequest) => {
      const processes = (await service.pids(r.id)).map(({ pid, execId }) => {
        const details = execId === undefined ? undefined : new containerd.runc.v1.ProcessDetails({ exec_id: execId });
        const info = details && toAny('containerd.runc.v1.ProcessDetails', details.serialize());
        return new v1.types.ProcessInfo({ pid, info });
      });
      return new pb.PidsResponse({ processes });
    }),
    unary('Stats', async (r: task.v2.StatsRequest) => {
      const s = await service.stats(r.id);
      const metrics = new cg.Metrics({
        pids: new cg.PidsStat({ current: s.pidsCurrent, limit: s.pidsLimit }),
        cpu: new cg.CPUStat({
          usage: new cg.CPUUsage({ total: s.cpuUsageNs, kernel: s.cpuSystemNs, user: s.cpuUserNs }),
        }),
        memory: new cg.MemoryStat({
          rss: s.memoryRssBytes,
          usage: new cg.MemoryEntry({ usage: s.memoryUsageBytes, limit: s.memoryLimitBytes }),
        }),
      });
      return new pb.StatsResponse({ stats: toAny('io.containerd.cgroups.v1.Metrics', metrics.serialize()) });
    }),
  ]);
}
