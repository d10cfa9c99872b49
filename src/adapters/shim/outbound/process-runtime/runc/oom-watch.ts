import { readFileSync } from 'node:fs';
import { nativeAddon } from '../../../helpers/native-addon';

const MEMORY_V1 = '/sys/fs/cgroup/memory';

/**
 * Reports the OOM kills in the memory cgroup of process `pid` (a container's init, just
 * made, so in the container's cgroup whatever the cgroup driver named it). cgroup v1 only,
 * as on the hosts skiff runs on now; with cgroup v2 (no memory line in /proc/<pid>/cgroup
 * but the unified one) nothing is watched. Returns whether a watch started.
 */
export function watchOom(pid: number, onOom: () => void): boolean {
  let lines: string[];
  try {
    lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n');
  } catch {
    return false;
  }
  const memory = lines.map((l) => l.split(':')).find((f) => f.length >= 3 && f[1].split(',').includes('memory'));
  if (memory === undefined) return false;
  try {
    nativeAddon().watchOom(`${MEMORY_V1}${memory.slice(2).join(':')}`, onOom);
    return true;
  } catch {
    // No memory controller there (or no permission): OOM kills go unreported, exits do not.
    return false;
  }
}
