import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readRegularFile } from '../../../shared/helpers/no-follow-file';

/**
 * The on-disk layout the serving process shares with the native programs, stated in
 * docs/on-disk-layout.md; native/common/task-layout.h is its C side, and
 * test/native/layout-agreement.test.ts holds the two to each other.
 */

/** <containerd state>/io.containerd.runtime.v2.task/<namespace>/<id>: containerd's bundle of a task. */
export const BUNDLES_DIR = 'io.containerd.runtime.v2.task';
/** <containerd state>/skiff: the groups' sockets and locks, and a state dir per namespace. */
export const SKIFF_DIR = 'skiff';
/** <state dir>/tasks/<id>: one task's files (not <state dir>/<id>: a task named `runc` would be runc's root). */
export const TASKS_DIR = 'tasks';
/** In the task dir: the init's pid, written by the OCI runtime (create, restore). */
export const INIT_PID_FILE = 'init.pid';
/** In the task dir: the serving process's record of the task, from which a new one takes it over. */
export const TASK_RECORD_FILE = 'task.json';
/**
 * In the task dir: where a record is written before it is renamed over TASK_RECORD_FILE,
 * `.task.json.<pid>.<random>.tmp`, one name per write (no writer touches another's).
 */
export function taskRecordTemp(pid: number, random: string): string {
  return `.task.json.${pid}.${random}.tmp`;
}

/**
 * The writer's pid when `name` is a temp record; 0 for `.task.json.tmp`, the one name of
 * earlier versions; undefined when it is no temp record.
 */
export function taskRecordTempWriter(name: string): number | undefined {
  if (name === '.task.json.tmp') return 0;
  const match = /^\.task\.json\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name);
  return match ? Number(match[1]) : undefined;
}
/** In the task dir: the OCI runtime that made the task's container, written before it does. */
export const OCI_RUNTIME_FILE = 'oci-runtime.json';

/**
 * The content of OCI_RUNTIME_FILE: what containerd-shim-skiff-v2 `delete` runs `delete --force`
 * with, and where the serving process finds the bundle of a Create a crash cut short before its
 * record was written (RuncRuntime.removeLeftover).
 */
export interface OciRuntimeRecord {
  /** The runtime's binary, absolute. */
  readonly binary: string;
  /** Its --root, absolute. */
  readonly root: string;
  /** The task's bundle, absolute (absent from records written before 2026-11-28). */
  readonly bundle?: string;
}

/** <containerd state>/skiff/<namespace>: the --state-dir of a namespace's serving processes. */
export function serverStateDir(containerdState: string, namespace: string): string {
  return join(containerdState, SKIFF_DIR, namespace);
}

/** The bundles of a serving process's namespace, from its state dir (serverStateDir's inverse). */
export function bundlesDir(stateDir: string, namespace: string): string {
  return join(stateDir, '..', '..', BUNDLES_DIR, namespace);
}

export function taskDir(stateDir: string, id: string): string {
  return join(stateDir, TASKS_DIR, id);
}

/** <state dir>/<runtime name>: an OCI runtime's --root (runc's: <state dir>/runc). */
export function runtimeRoot(stateDir: string, runtimeName: string): string {
  return join(stateDir, runtimeName);
}

/** The task dir's OCI_RUNTIME_FILE, undefined when it cannot be read or names no absolute binary and root. */
export function readOciRuntimeRecord(dir: string): OciRuntimeRecord | undefined {
  let record: Partial<Record<keyof OciRuntimeRecord, unknown>>;
  try {
    // A link, a FIFO or a device there is no record (no-follow-file.ts): it is read on the event loop.
    record = JSON.parse(readRegularFile(join(dir, OCI_RUNTIME_FILE), { limit: 64 * 1024 }) ?? '') as typeof record;
  } catch {
    return undefined;
  }
  const absolute = (value: unknown): value is string => typeof value === 'string' && value.startsWith('/');
  if (!absolute(record.binary) || !absolute(record.root)) return undefined;
  return { binary: record.binary, root: record.root, ...(absolute(record.bundle) ? { bundle: record.bundle } : {}) };
}

/** Writes the task dir's OCI_RUNTIME_FILE; before the container exists, so a container always has one. */
export function writeOciRuntimeRecord(dir: string, record: Required<OciRuntimeRecord>): void {
  const text = JSON.stringify({
    binary: resolve(record.binary),
    root: resolve(record.root),
    bundle: resolve(record.bundle),
  });
  writeFileSync(join(dir, OCI_RUNTIME_FILE), text, { mode: 0o600 });
}
