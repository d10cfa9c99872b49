import type { SandboxRecord } from '../../../../application/shim/ports/sandbox-journal.port';

/** A sandbox record as JSON (bundle-sandbox-journal.ts): times in milliseconds since the epoch. */
export function sandboxRecordToJson(record: SandboxRecord): string {
  const { spec } = record;
  return JSON.stringify({
    id: spec.id,
    ...(spec.netns !== undefined && { netns: spec.netns }),
    ...(spec.hostname !== undefined && { hostname: spec.hostname }),
    ownPid: spec.ownPid,
    ownIpc: spec.ownIpc,
    sysctls: spec.sysctls,
    createdAt: record.createdAt.getTime(),
    pid: record.pid,
    ...(record.exit !== undefined && {
      exit: { exitStatus: record.exit.exitStatus, exitedAt: record.exit.exitedAt.getTime() },
    }),
  });
}

/** The record `text` holds; the bundle is the directory it was read from. Throws naming the field that is wrong. */
export function sandboxRecordFromJson(text: string): Omit<SandboxRecord, 'bundle'> {
  const value = JSON.parse(text) as Record<string, unknown>;
  if (typeof value !== 'object' || value === null) throw new Error('not a JSON object');
  const string = (name: string): string => {
    if (typeof value[name] !== 'string') throw new Error(`${name} is not a string`);
    return value[name] as string;
  };
  const optionalString = (name: string) => (value[name] === undefined ? undefined : string(name));
  const bool = (name: string): boolean => {
    if (typeof value[name] !== 'boolean') throw new Error(`${name} is not a boolean`);
    return value[name] as boolean;
  };
  const count = (v: unknown, name: string): number => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new Error(`${name} is not a count`);
    return v;
  };
  const sysctls = value.sysctls;
  if (
    !Array.isArray(sysctls) ||
    !sysctls.every((s) => Array.isArray(s) && s.length === 2 && s.every((p) => typeof p === 'string'))
  )
    throw new Error('sysctls is not a list of [name, value]');
  const exit = value.exit as Record<string, unknown> | undefined;
  if (exit !== undefined && (typeof exit !== 'object' || exit === null)) throw new Error('exit is not an object');
  const netns = optionalString('netns');
  const hostname = optionalString('hostname');
  return {
    spec: {
      id: string('id'),
      ...(netns !== undefined && { netns }),
      ...(hostname !== undefined && { hostname }),
      ownPid: bool('ownPid'),
      ownIpc: bool('ownIpc'),
      sysctls: sysctls as Array<[string, string]>,
    },
    createdAt: new Date(count(value.createdAt, 'createdAt')),
    pid: count(value.pid, 'pid'),
    ...(exit !== undefined && {
      exit: {
        exitStatus: count(exit.exitStatus, 'exit.exitStatus'),
        exitedAt: new Date(count(exit.exitedAt, 'exit.exitedAt')),
      },
    }),
  };
}
