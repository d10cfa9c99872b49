import { CtrResult, describeCtr, PrivateContainerd } from '../../support/containerd';
import { waitFor } from '../../support/wait-for';

export { processRuns } from '../../support/containerd';

/**
 * `ctr run` arguments around the image and id of a task the kernel's OOM killer ends: a 16 MiB
 * limit, and a shell string that doubles until it is killed.
 */
export const OOM_LIMIT = ['--memory-limit', String(16 << 20)] as const;
export const OOM_COMMAND = ['sh', '-c', 'a=x; while true; do a=$a$a; done'] as const;

export interface TaskRow {
  readonly pid: number;
  readonly status: string;
}

/** `ctr task ls` as id -> { pid, status }. */
export async function taskList(env: PrivateContainerd, ns: string): Promise<Map<string, TaskRow>> {
  const result = await ok(env, ns, ['tasks', 'ls']);
  const rows = new Map<string, TaskRow>();
  for (const line of result.stdout.trim().split('\n').slice(1)) {
    const [id, pid, status] = line.trim().split(/\s+/);
    if (id !== undefined && id !== '') rows.set(id, { pid: Number(pid), status });
  }
  return rows;
}

/** Runs ctr and fails with one line (the command, how it ended, its last stderr line) unless it exits 0. */
export async function ok(env: PrivateContainerd, ns: string, args: readonly string[]): Promise<CtrResult> {
  const result = await env.ctr(ns, args);
  if (result.status !== 0) throw new Error(describeCtr(args, result));
  return result;
}

/** Polls `ctr task ls` until the task has `status`; a timeout says the status it had last. */
export async function waitForStatus(
  env: PrivateContainerd,
  ns: string,
  id: string,
  status: string,
  timeoutMs = 10_000,
): Promise<TaskRow> {
  let seen = 'absent';
  return waitFor(
    () => `task ${id} to be ${status} (it is ${seen})`,
    async () => {
      const row = (await taskList(env, ns)).get(id);
      seen = row?.status ?? 'absent';
      return row?.status === status ? row : undefined;
    },
    timeoutMs,
  );
}
