/**
 * The tests' view of processes in /proc: parents, command lines, open descriptors and
 * skiff's pod keepers. One reading of /proc for the tests, the teardown and the benchmarks
 * (scripts/containerd/procfs.js and runtime-processes.js, typed here).
 */
const procfs = require('../../scripts/containerd/procfs.js') as {
  read(file: string): string | undefined;
  statFields(pid: number): string[] | undefined;
  pids(): number[];
  argAfter(argv: readonly string[], flag: string): string | undefined;
};

/** Every pid in /proc, and the value after a flag in a command line. */
export const { pids, argAfter } = procfs;
const procs = require('../../scripts/containerd/runtime-processes.js') as {
  fdCount(pid: number): number;
  podKeeperPids(address: string): number[];
};

/** The parent of `pid` (0 once it is gone). */
export function parentOf(pid: number): number {
  return Number(procfs.statFields(pid)?.[1] ?? 0);
}

/** The command line of `pid` (empty once it is gone, or for a zombie). */
export function argvOf(pid: number): string[] {
  return (procfs.read(`/proc/${pid}/cmdline`) ?? '').split('\0').filter((a) => a !== '');
}

/** How many descriptors `pid` holds open (0 once it is gone). */
export const openFds: (pid: number) => number = procs.fdCount;

/** The pod keepers (`containerd-shim-skiff-v2 ... keep`) started for the containerd at `address`. */
export const keeperPids: (address: string) => number[] = procs.podKeeperPids;
