import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { task } from '../../../src/adapters/shim/wire/proto/generated/task/v2/shim';
import { ttrpc } from '../../../src/adapters/shim/wire/proto/generated/ttrpc/request';
import { TtrpcClient } from '../../../src/adapters/shim/wire/ttrpc/ttrpc-client';
import { TTRPC_TASK_SERVICE } from '../../../src/adapters/shim/wire/ttrpc/service-names';
import { groupServerPids, groupServersUnder } from '../containerd/skiff-support';
import { waitFor } from '../../support/wait-for';

/** Whether `pid` still runs (a zombie does not), its descriptors, the keepers of a containerd address. */
export { processRuns as alive } from '../../support/containerd';

/** Whether the process ignores SIGTERM (bit 15 of SigIgn in /proc/<pid>/status); false once it is gone. */
export function ignoresSigterm(pid: number): boolean {
  try {
    const mask = /^SigIgn:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '0';
    return (BigInt(`0x${mask}`) & (1n << 14n)) !== 0n;
  } catch {
    return false;
  }
}
export { keeperPids, openFds } from '../../support/procs';

export const BUILT_SHIM = resolve(__dirname, '../../../build/Release/containerd-shim-skiff-v2');

/**
 * A containerd state dir with one bundle, as containerd lays it out before `start`
 * (<state>/io.containerd.runtime.v2.task/<ns>/<id>), without a containerd. `log` is a plain
 * file here, so what the keeper and the serving process write to stderr can be read.
 */
export interface Layout {
  readonly root: string;
  readonly state: string;
  readonly address: string;
  bundle(id: string, annotations?: Record<string, string>): string;
}

export function layout(ns: string): Layout {
  const root = mkdtempSync(join(tmpdir(), 'skiff-keeper-'));
  const state = join(root, 'state');
  return {
    root,
    state,
    address: join(root, 'c.sock'),
    bundle(id, annotations = {}) {
      const dir = join(state, 'io.containerd.runtime.v2.task', ns, id);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ annotations }));
      writeFileSync(join(dir, 'log'), '');
      return dir;
    },
  };
}

/**
 * `start` with the keeper, as containerd runs it at log level debug (the serving process then
 * logs every call); the printed address, or the result when it failed. `prepare` may change
 * the bundle first.
 */
export function start(
  shim: string,
  l: Layout,
  ns: string,
  id: string,
  env: NodeJS.ProcessEnv = {},
  annotations: Record<string, string> = {},
  prepare: (bundle: string) => void = () => undefined,
) {
  const bundle = l.bundle(id, annotations);
  prepare(bundle);
  const result = spawnSync(shim, ['-namespace', ns, '-address', l.address, '-id', id, '-debug', 'start'], {
    cwd: bundle,
    encoding: 'utf8',
    timeout: 10_000,
    env: { ...process.env, SKIFF_KEEPER: '1', ...env },
  });
  return { ...result, bundle, socket: result.stdout.replace(/^unix:\/\//, '') };
}

export function serverPids(l: Layout): number[] {
  return groupServerPids(l.root);
}

/** The serving processes of this layout: pid and group socket. */
export function groupServers(l: Layout): Array<{ pid: number; socket: string }> {
  return groupServersUnder(l.root);
}

/** Parent pid and session id from /proc/<pid>/stat. */
export function parentAndSession(pid: number): { ppid: number; sid: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), sid: Number(fields[3]) };
}

/** Bytes `pid` has written through write and send calls (/proc/<pid>/io wchar). */
export function bytesWritten(pid: number): number {
  return Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);
}

/**
 * Makes `calls` on `c` and resolves once the keeper has relayed all their bytes: with the
 * serving process stopped, they are then in flight at it, none still waiting in the keeper.
 */
export async function relayedInFlight<T>(keeper: number, c: TaskCalls, calls: () => T): Promise<T> {
  const [written, sent] = [bytesWritten(keeper), c.bytesSent];
  const made = calls();
  await waitFor('the keeper to relay the calls', () => bytesWritten(keeper) - written >= c.bytesSent - sent);
  return made;
}

/** Task calls by hand on one connection, as containerd makes them. */
export class TaskCalls {
  readonly client: TtrpcClient;
  /** Bytes of the frames written so far: what the keeper has to relay of them. */
  bytesSent = 0;
  constructor(socket: string) {
    this.client = new TtrpcClient(socket);
  }
  state(id: string) {
    return this.call('State', new task.v2.StateRequest({ id }).serialize());
  }
  wait(id: string) {
    return this.call('Wait', new task.v2.WaitRequest({ id }).serialize());
  }
  kill(id: string) {
    return this.call('Kill', new task.v2.KillRequest({ id, signal: 9 }).serialize());
  }
  create(id: string, bundle: string) {
    return this.call('Create', new task.v2.CreateTaskRequest({ id, bundle }).serialize());
  }
  shutdown(id: string) {
    return this.call('Shutdown', new task.v2.ShutdownRequest({ id }).serialize());
  }
  private call(method: string, payload: Uint8Array) {
    // The frame TtrpcClient writes: the 10-byte header and a Request without timeout or metadata.
    this.bytesSent += 10 + new ttrpc.Request({ service: TTRPC_TASK_SERVICE, method, payload }).serialize().length;
    return this.client.call(TTRPC_TASK_SERVICE, method, Buffer.from(payload));
  }
  close() {
    this.client.close();
  }
}

/** A call's outcome as code and message (0 and '' for success). */
export async function outcome(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await call;
    return { code: 0, message: '' };
  } catch (err) {
    const e = err as { code: number; details: string };
    return { code: e.code, message: e.details };
  }
}
