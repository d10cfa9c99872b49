import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InternalError, NotFoundError } from '../../../../../domain/shared/errors';
import { TaskStats } from '../../../../../domain/shim/task-stats';
import { limit } from './runc-stats';

/** The cgroup v1 directories of a container that its Stats read (ContainerCgroup.v1StatsDirs). */
export interface CgroupV1Dirs {
  readonly memory: string;
  readonly cpuacct: string;
  readonly pids?: string;
}

/** cpuacct.stat counts in USER_HZ, 100 on every Linux runc runs on (runc's fs.getCpuUsageBreakdown). */
const NS_PER_TICK = 1e9 / 100;

/**
 * A container's figures read from its cgroup v1 directories, as runc's fs manager reads them
 * for `runc events --stats` (libcontainer/cgroups/fs: cpuacct.go, memory.go, pids.go) and
 * containerd's runc shim for Stats: cpuacct.usage and .stat, memory.usage_in_bytes,
 * .limit_in_bytes and memory.stat's total_rss, pids.current and .max. Read from the files,
 * not through runc, so that a task that has exited answers until its Delete (containerd 2.3
 * asks Stats after an exit 137, for its OOM check), as the runc shim's cgroup does, and no
 * `runc` is forked for a call kubelet makes every few seconds. A cgroup that is gone is NotFound
 * `cgroup does not exist`, as the runc shim answers.
 */
export function readCgroupV1Stats(dirs: CgroupV1Dirs, subject: string): TaskStats {
  if (!existsSync(dirs.memory) || !existsSync(dirs.cpuacct))
    throw new NotFoundError(`${subject}: cgroup does not exist (${dirs.memory})`, 'CGROUP.GONE');
  const cpu = keyed(dirs.cpuacct, 'cpuacct.stat', subject);
  const memory = keyed(dirs.memory, 'memory.stat', subject);
  return {
    cpuUsageNs: value(dirs.cpuacct, 'cpuacct.usage', subject),
    cpuUserNs: (cpu.get('user') ?? 0) * NS_PER_TICK,
    cpuSystemNs: (cpu.get('system') ?? 0) * NS_PER_TICK,
    memoryRssBytes: memory.get('total_rss') ?? memory.get('rss') ?? 0,
    memoryUsageBytes: value(dirs.memory, 'memory.usage_in_bytes', subject),
    memoryLimitBytes: limit(value(dirs.memory, 'memory.limit_in_bytes', subject)),
    pidsCurrent: dirs.pids === undefined ? 0 : value(dirs.pids, 'pids.current', subject),
    pidsLimit: dirs.pids === undefined ? 0 : limit(value(dirs.pids, 'pids.max', subject)),
  };
}

/** A file of one number (`max`: no limit, 0); a missing file is 0, as runc leaves a figure it cannot read. */
function value(dir: string, file: string, subject: string): number {
  let text: string;
  try {
    text = readFileSync(join(dir, file), 'latin1').trim();
  } catch {
    return 0;
  }
  if (text === 'max') return 0;
  const n = Number(text);
  if (text === '' || !Number.isFinite(n) || n < 0)
    throw new InternalError(
      `${subject}: ${join(dir, file)} is not a count: ${JSON.stringify(text.slice(0, 40))}`,
      'CGROUP.PARSE',
    );
  return n;
}

/** A file of `<key> <count>` lines; a missing file is empty. */
function keyed(dir: string, file: string, subject: string): Map<string, number> {
  const figures = new Map<string, number>();
  let text: string;
  try {
    text = readFileSync(join(dir, file), 'latin1');
  } catch {
    return figures;
  }
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const [key, count, extra] = line.split(' ');
    const n = Number(count);
    if (key === '' || count === undefined || extra !== undefined || !Number.isFinite(n) || n < 0)
      throw new InternalError(
        `${subject}: ${join(dir, file)} has a line that is not "<key> <count>": ${JSON.stringify(line.slice(0, 40))}`,
        'CGROUP.PARSE',
      );
    figures.set(key, n);
  }
  return figures;
}
