import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CgroupV1Dirs } from './cgroup-v1-stats';

/** Where the host mounts its cgroups. */
export const CGROUP_ROOT = '/sys/fs/cgroup';

/**
 * The cgroup runc put a container in, read from /proc/<init>/cgroup while the init lives
 * (whatever the cgroup driver named it): where OOM kills are told (the memory controller's
 * directory on cgroup v1, `memory.events` on a cgroup v2 host), where a cgroup v2 host's
 * Stats are read, and the directory whose processes `runc kill --all` signals (runc's
 * GetAllPids: the v1 `devices` cgroup, else the unified one), trusted only once it was seen
 * to list the init. `root` is where the cgroups are mounted, /sys/fs/cgroup but in tests.
 */
export class ContainerCgroup {
  private constructor(
    readonly memoryV1Dir: string | undefined,
    private readonly processesDir: string | undefined,
    /**
     * On a cgroup v2 (unified only) host: the cgroup's directory (its memory.events counts the
     * OOM kills; its files are the task's Stats).
     */
    readonly unifiedDir: string | undefined,
    /** Where the freezer tells a paused container: v1 `freezer.state` (FROZEN), v2 `cgroup.freeze` (1). */
    private readonly freezerFile: string | undefined = undefined,
    /** On a cgroup v1 host: the directories the task's Stats read (cgroup-v1-stats.ts), when memory and cpuacct are known. */
    readonly v1StatsDirs: CgroupV1Dirs | undefined = undefined,
  ) {}

  static of(pid: number, root: string = CGROUP_ROOT): ContainerCgroup {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/cgroup`, 'latin1');
    } catch {
      return new ContainerCgroup(undefined, undefined, undefined);
    }
    return ContainerCgroup.parse(text, pid, root);
  }

  /** From the text of /proc/<pid>/cgroup. */
  static parse(text: string, pid: number, root: string = CGROUP_ROOT): ContainerCgroup {
    // "<id>:<controllers>:<path>", controllers '' for the unified hierarchy.
    const paths = new Map<string, string>();
    for (const line of text.split('\n')) {
      const fields = line.split(':');
      if (fields.length < 3) continue;
      for (const controller of fields[1].split(',')) paths.set(controller, fields.slice(2).join(':'));
    }
    const memory = paths.get('memory');
    const freezer = paths.get('freezer');
    const devices = paths.get('devices');
    const cpuacct = paths.get('cpuacct');
    const pids = paths.get('pids');
    const unified = paths.size === 1 ? paths.get('') : undefined;
    const candidate =
      devices !== undefined ? join(root, 'devices', devices) : unified !== undefined ? join(root, unified) : undefined;
    return new ContainerCgroup(
      memory === undefined ? undefined : join(root, 'memory', memory),
      candidate !== undefined && listsPid(candidate, pid) ? candidate : undefined,
      unified === undefined ? undefined : join(root, unified),
      freezer !== undefined
        ? join(root, 'freezer', freezer, 'freezer.state')
        : unified !== undefined
          ? join(root, unified, 'cgroup.freeze')
          : undefined,
      memory !== undefined && cpuacct !== undefined
        ? {
            memory: join(root, 'memory', memory),
            // Mounted as cpu,cpuacct on most hosts: the directory is named by the mount, which lists both.
            cpuacct: join(root, controllerMount(root, 'cpuacct'), cpuacct),
            ...(pids !== undefined && { pids: join(root, 'pids', pids) }),
          }
        : undefined,
    );
  }

  /** Whether the freezer holds the container (runc pause): what `runc state` reads as paused. */
  isFrozen(): boolean {
    if (this.freezerFile === undefined) return false;
    try {
      const state = readFileSync(this.freezerFile, 'latin1').trim();
      return state === 'FROZEN' || state === '1';
    } catch {
      return false;
    }
  }

  /** True only when the container's cgroup, and every cgroup below it, was read and holds no process. */
  isEmpty(): boolean {
    if (this.processesDir === undefined) return false;
    try {
      return !holdsProcesses(this.processesDir);
    } catch {
      return false;
    }
  }
}

/** The directory under `root` where a v1 controller is mounted: its own name, or a joint mount (cpu,cpuacct) naming it. */
function controllerMount(root: string, controller: string): string {
  try {
    if (existsSync(join(root, controller))) return controller;
    const joint = readdirSync(root).find((name) => name.split(',').includes(controller));
    return joint ?? controller;
  } catch {
    return controller;
  }
}

function listsPid(dir: string, pid: number): boolean {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'latin1').split('\n').includes(String(pid));
  } catch {
    return false;
  }
}

function holdsProcesses(dir: string): boolean {
  if (readFileSync(join(dir, 'cgroup.procs'), 'latin1').trim() !== '') return true;
  return readdirSync(dir, { withFileTypes: true }).some((e) => e.isDirectory() && holdsProcesses(join(dir, e.name)));
}
