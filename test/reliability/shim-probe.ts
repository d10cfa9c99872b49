import { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { waitFor } from '../support/wait-for';

/** Open descriptors of a process. */
export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Resident memory of a process in MiB. */
export function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match === null ? 0 : Number(match[1]) / 1024;
}

/** Children of `pid` that exited and were never reaped. */
export function zombieChildren(pid: number): number[] {
  const zombies: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z' && Number(fields[1]) === pid) zombies.push(Number(name));
    } catch {
      // gone
    }
  }
  return zombies;
}

export interface ShimUsage {
  readonly fds: number;
  readonly heapUsedMiB: number;
  readonly rssMiB: number;
}

/** Asks a shim for its usage line (SIGUSR2) and parses it from its stderr. */
export async function shimUsage(child: ChildProcess, stderr: () => string): Promise<ShimUsage> {
  const before = stderr().length;
  child.kill('SIGUSR2');
  const match = await waitFor(
    'the shim to print its usage line',
    () => /skiff shim usage: .*fds=(\d+) heap_used=(\d+) rss=(\d+)/.exec(stderr().slice(before)) ?? undefined,
    5000,
  );
  return { fds: Number(match[1]), heapUsedMiB: Number(match[2]) / 1048576, rssMiB: Number(match[3]) / 1048576 };
}
