import { readFileSync, watch } from 'node:fs';
import { nativeAddon } from '../../../helpers/native-addon';
import { ContainerCgroup } from './container-cgroup';

/**
 * Reports the OOM kills in a container's cgroup: on cgroup v1 through the memory controller's
 * eventfd (native/oom.c), on cgroup v2 by watching memory.events. Returns whether a watch started;
 * without one, OOM kills go unreported and exits do not.
 */
export function watchOom(cgroup: ContainerCgroup, onOom: () => void): boolean {
  if (cgroup.memoryV1Dir !== undefined) {
    try {
      nativeAddon().watchOom(cgroup.memoryV1Dir, onOom);
      return true;
    } catch {
      return false; // no memory controller there, or no permission
    }
  }
  return cgroup.memoryEventsV2 !== undefined && watchMemoryEvents(cgroup.memoryEventsV2, onOom);
}

/**
 * cgroup v2: every change of memory.events is a file-modified event (inotify), and its
 * `oom_kill` counts the kills; one report per rise of the count, as containerd's runc shim
 * publishes one TaskOOM per rise (pkg/oom/v2). The watch ends with the cgroup.
 */
export function watchMemoryEvents(file: string, onOom: () => void): boolean {
  const initial = oomKills(file);
  if (initial === undefined) return false;
  let seen = initial;
  try {
    const watcher = watch(file, { persistent: false }, (event) => {
      const now = oomKills(file);
      if (now === undefined || event === 'rename') {
        watcher.close();
        return;
      }
      if (now > seen) onOom();
      seen = now;
    });
    watcher.on('error', () => watcher.close());
    return true;
  } catch {
    return false;
  }
}

/** The `oom_kill` count of a memory.events file, or undefined when it cannot be read. */
function oomKills(file: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'latin1');
  } catch {
    return undefined;
  }
  const match = /^oom_kill (\d+)$/m.exec(text);
  return match === null ? 0 : Number(match[1]);
}
