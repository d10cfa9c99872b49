import { FSWatcher, readFileSync, watch } from 'node:fs';
import { dirname, join } from 'node:path';
import { nativeAddon } from '../../../os/native-addon';
import { ContainerCgroup } from './container-cgroup';

/** A started OOM watch. */
export interface OomWatch {
  /**
   * Reports at once an OOM kill the kernel has counted and the watch not yet told: called before
   * the container's exit is reported, so that containerd hears TaskOOM first, as CRI needs to
   * give the exit its `OOMKilled` reason (inotify's word may come after the init's exit).
   */
  check(): void;
}

/**
 * Reports the OOM kills in a container's cgroup: on cgroup v1 through the memory controller's
 * eventfd (native/addon/oom.c), on cgroup v2 by watching memory.events. Returns the watch, or
 * undefined when none started; without one, OOM kills go unreported and exits do not.
 */
export function watchOom(cgroup: ContainerCgroup, onOom: () => void): OomWatch | undefined {
  if (cgroup.memoryV1Dir !== undefined) {
    try {
      nativeAddon().watchOom(cgroup.memoryV1Dir, onOom);
      return { check: () => undefined }; // the eventfd is read as it is signalled
    } catch {
      return undefined; // no memory controller there, or no permission
    }
  }
  return cgroup.unifiedDir === undefined
    ? undefined
    : watchMemoryEvents(join(cgroup.unifiedDir, 'memory.events'), onOom);
}

/**
 * cgroup v2: every change of memory.events is a file-modified event (inotify), and its
 * `oom_kill` counts the kills; one report per rise of the count, as containerd's runc shim
 * publishes one TaskOOM per rise (pkg/oom/v2). Removing a cgroup tells the watchers of its
 * files nothing, so the watch ends once the cgroup's cgroup.events says it holds no process
 * (`populated 0`), as containerd's does (github.com/containerd/cgroups pull 212, an inotify
 * leak per container otherwise).
 */
export function watchMemoryEvents(file: string, onOom: () => void): OomWatch | undefined {
  const cgroupEvents = join(dirname(file), 'cgroup.events');
  const initial = oomKills(file);
  if (initial === undefined || !populated(cgroupEvents)) return undefined;
  let seen = initial;
  const watchers: FSWatcher[] = [];
  const end = () => watchers.forEach((watcher) => watcher.close());
  const check = () => {
    const now = oomKills(file);
    if (now !== undefined && now > seen) onOom();
    seen = now ?? seen;
    return now;
  };
  const changed = (event: string) => {
    const now = check();
    if (now === undefined || event === 'rename' || !populated(cgroupEvents)) end();
  };
  try {
    for (const watched of [file, cgroupEvents]) {
      const watcher = watch(watched, { persistent: false }, changed);
      watcher.on('error', end);
      watchers.push(watcher);
    }
    return { check };
  } catch {
    end();
    return undefined;
  }
}

/** Whether a cgroup.events file says its cgroup (or one below it) holds a process; false when it cannot be read. */
function populated(file: string): boolean {
  try {
    return /^populated 1$/m.test(readFileSync(file, 'latin1'));
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
