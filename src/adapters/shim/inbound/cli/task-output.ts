import { ProcessStatus } from '../../../../domain/shim/lifecycle';
import { DeleteView, ExitView, PidView, StateView, StatsView } from '../../../../application/shim/task/task-messages';

/**
 * What `skiff task ... --json` prints: the reply's proto field names, the status as
 * its v1.types.Status name, times as RFC 3339 (absent while unset).
 */
const STATUS_NAME: Record<ProcessStatus, string> = {
  created: 'CREATED',
  running: 'RUNNING',
  paused: 'PAUSED',
  stopped: 'STOPPED',
  deleted: 'UNKNOWN',
};

export function stateJson(s: StateView) {
  return {
    id: s.id,
    exec_id: s.execId,
    bundle: s.bundle,
    pid: s.pid,
    status: STATUS_NAME[s.status],
    stdin: s.stdin,
    stdout: s.stdout,
    stderr: s.stderr,
    terminal: s.terminal,
    exit_status: s.exitStatus,
    exited_at: s.exitedAt?.toISOString(),
  };
}

export function exitJson(e: ExitView) {
  return { exit_status: e.exitStatus, exited_at: e.exitedAt?.toISOString() };
}

export function deleteJson(d: DeleteView) {
  return { pid: d.pid, ...exitJson(d) };
}

export function pidsJson(pids: PidView[]) {
  return { processes: pids.map((p) => (p.execId === undefined ? { pid: p.pid } : { pid: p.pid, exec_id: p.execId })) };
}

export function statsJson(s: StatsView) {
  return {
    runtime: s.runtime,
    cpu_usage_ns: s.cpuUsageNs,
    cpu_user_ns: s.cpuUserNs,
    cpu_system_ns: s.cpuSystemNs,
    memory_rss_bytes: s.memoryRssBytes,
    memory_usage_bytes: s.memoryUsageBytes,
    memory_limit_bytes: s.memoryLimitBytes,
    pids_current: s.pidsCurrent,
    pids_limit: s.pidsLimit,
  };
}

export function exitLine(e: ExitView): string {
  return `exit status ${e.exitStatus}${e.exitedAt ? ` at ${e.exitedAt.toISOString()}` : ''}`;
}
