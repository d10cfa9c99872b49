import { ExitStatus } from '../../../../domain/shim/exit-status';
import { Stdio } from '../../../../domain/shim/task-process';
import { RootfsMount } from '../../../../application/shim/ports/process-runtime.port';
import {
  ExecRecord,
  ProcessRecord,
  RecordedStatus,
  TaskRecord,
} from '../../../../application/shim/ports/task-journal.port';

/** The version of task.json's format: a reader refuses a record of a version it does not know. */
export const RECORD_VERSION = 1;

const STATUSES: readonly RecordedStatus[] = ['created', 'running', 'paused', 'stopped'];

/** task.json's text: dates as ISO strings, the runtime options' bytes in base64. */
export function recordToJson(record: TaskRecord): string {
  const { options, createdAt, init, execs, ...rest } = record;
  return JSON.stringify({
    version: RECORD_VERSION,
    ...rest,
    options:
      options === undefined
        ? undefined
        : { typeUrl: options.typeUrl, value: Buffer.from(options.value).toString('base64') },
    createdAt: createdAt.toISOString(),
    init: processToJson(init),
    execs: execs.map((exec) => ({ ...processToJson(exec), spec: exec.spec })),
  });
}

function processToJson(p: ProcessRecord): Record<string, unknown> {
  const { exit, ...rest } = p;
  return {
    ...rest,
    exit: exit === undefined ? undefined : { status: exit.status, exitedAt: exit.exitedAt.toISOString() },
  };
}

/** Reads task.json's text back; throws an Error whose message says what is wrong with it. */
export function recordFromJson(text: string): TaskRecord {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(text.length === 0 ? 'the file is empty' : 'not JSON (a partial or corrupt write)');
  }
  const o = object(json, 'the record');
  if (o.version !== RECORD_VERSION) throw new Error(`version ${String(o.version)} is not ${RECORD_VERSION}`);
  const options = o.options === undefined ? undefined : object(o.options, 'options');
  return {
    id: string(o.id, 'id'),
    bundle: string(o.bundle, 'bundle'),
    runtime: string(o.runtime, 'runtime'),
    rootfs: array(o.rootfs, 'rootfs').map((m) => mount(m)),
    checkpoint: string(o.checkpoint, 'checkpoint'),
    options:
      options === undefined
        ? undefined
        : {
            typeUrl: string(options.typeUrl, 'options.typeUrl'),
            value: Buffer.from(string(options.value, 'options.value'), 'base64'),
          },
    createdAt: date(o.createdAt, 'createdAt'),
    init: processRecord(o.init, 'init'),
    execs: array(o.execs, 'execs').map((e, i) => execRecord(e, `execs[${i}]`)),
  };
}

function processRecord(value: unknown, what: string): ProcessRecord {
  const p = object(value, what);
  const status = string(p.status, `${what}.status`) as RecordedStatus;
  if (!STATUSES.includes(status)) throw new Error(`${what}.status ${JSON.stringify(status)} is not a status`);
  return {
    execId: string(p.execId, `${what}.execId`),
    stdio: stdio(p.stdio, `${what}.stdio`),
    pid: count(p.pid, `${what}.pid`),
    startTime: count(p.startTime, `${what}.startTime`),
    status,
    exit: p.exit === undefined ? undefined : exit(p.exit, `${what}.exit`),
  };
}

function execRecord(value: unknown, what: string): ExecRecord {
  return { ...processRecord(value, what), spec: object(object(value, what).spec, `${what}.spec`) };
}

function exit(value: unknown, what: string): ExitStatus {
  const e = object(value, what);
  return { status: count(e.status, `${what}.status`), exitedAt: date(e.exitedAt, `${what}.exitedAt`) };
}

function stdio(value: unknown, what: string): Stdio {
  const s = object(value, what);
  if (typeof s.terminal !== 'boolean') throw new Error(`${what}.terminal is not true or false`);
  return {
    stdin: string(s.stdin, `${what}.stdin`),
    stdout: string(s.stdout, `${what}.stdout`),
    stderr: string(s.stderr, `${what}.stderr`),
    terminal: s.terminal,
  };
}

function mount(value: unknown): RootfsMount {
  const m = object(value, 'a rootfs mount');
  return {
    type: string(m.type, 'rootfs type'),
    source: string(m.source, 'rootfs source'),
    target: string(m.target, 'rootfs target'),
    options: array(m.options, 'rootfs options').map((x) => string(x, 'a rootfs option')),
  };
}

function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${what} is not an object`);
  return value as Record<string, unknown>;
}

function array(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${what} is not a list`);
  return value;
}

function string(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new Error(`${what} is not a string`);
  return value;
}

function count(value: unknown, what: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0) throw new Error(`${what} is not a whole number`);
  return value as number;
}

function date(value: unknown, what: string): Date {
  const d = new Date(string(value, what));
  if (Number.isNaN(d.getTime())) throw new Error(`${what} is not a date`);
  return d;
}
