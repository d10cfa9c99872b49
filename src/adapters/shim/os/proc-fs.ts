import { readdirSync, readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat skiff reads (proc(5)). */
export interface ProcStat {
  readonly pid: number;
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  readonly session: number;
  /** utime + stime + cutime + cstime, in clock ticks. */
  readonly userTicks: number;
  readonly systemTicks: number;
  /** When the process started, in clock ticks after boot: a later process that reuses the pid has another. */
  readonly startTicks: number;
  /** A zombie's wait status (waitpid(2)'s form), readable by root until its parent reaps it; 0 otherwise. */
  readonly exitCode: number;
}

/** Parses /proc/<pid>/stat; undefined when the process is gone. */
export function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const num = (i: number) => Number(fields[i - 3]);
  return {
    pid,
    state: fields[0],
    ppid: num(4),
    pgrp: num(5),
    session: num(6),
    userTicks: num(14) + num(16),
    systemTicks: num(15) + num(17),
    startTicks: num(22),
    exitCode: num(52) || 0,
  };
}

/** Every process of the machine, as /proc lists them at this moment. */
export function listProcStats(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const stat = readProcStat(pid);
    if (stat !== undefined) stats.push(stat);
  }
  return stats;
}

/** Resident set size of a process in bytes (VmRSS), 0 when gone or a zombie. */
export function readRssBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return match === null ? 0 : Number(match[1]) * 1024;
  } catch {
    return 0;
  }
}
