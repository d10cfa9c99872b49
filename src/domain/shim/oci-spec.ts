import { InvalidArgumentError } from '../shared/errors';

/** The parts of an OCI runtime-spec `Process` skiff reads. */
export interface OciProcess {
  readonly args: readonly string[];
  readonly env: readonly string[];
  readonly cwd: string;
  readonly terminal: boolean;
  readonly user?: { readonly uid: number; readonly gid: number };
}

/** The parts of a bundle's config.json skiff reads (runc reads the whole file itself). */
export interface OciSpec {
  readonly process: OciProcess;
  readonly rootPath: string;
  readonly hostname?: string;
  /** linux.namespaces has a new `user` namespace, or the spec maps ids (linux.uidMappings, gidMappings). */
  readonly userNamespace: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringList(value: unknown, field: string, where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw new InvalidArgumentError(`${where}: ${field} must be a list of strings`, 'SPEC.INVALID');
  }
  return value as string[];
}

/** Validates an OCI `Process` object; `where` names its source in errors. */
export function parseOciProcess(value: unknown, where: string): OciProcess {
  if (!isRecord(value)) {
    throw new InvalidArgumentError(`${where}: the process must be a JSON object`, 'SPEC.INVALID');
  }
  const args = stringList(value.args, 'process.args', where);
  if (args.length === 0 || args[0] === '') {
    throw new InvalidArgumentError(`${where}: process.args is empty; name the program to run`, 'SPEC.NO_ARGS');
  }
  const cwd = value.cwd === undefined ? '/' : value.cwd;
  if (typeof cwd !== 'string' || !cwd.startsWith('/')) {
    throw new InvalidArgumentError(`${where}: process.cwd must be an absolute path`, 'SPEC.INVALID');
  }
  return {
    args,
    env: stringList(value.env, 'process.env', where),
    cwd,
    terminal: value.terminal === true,
    user: parseUser(value.user, where),
  };
}

function parseUser(value: unknown, where: string): OciProcess['user'] {
  if (value === undefined) return undefined;
  if (!isRecord(value) || !Number.isInteger(value.uid ?? 0) || !Number.isInteger(value.gid ?? 0)) {
    throw new InvalidArgumentError(`${where}: process.user must hold integer uid and gid`, 'SPEC.INVALID');
  }
  return { uid: Number(value.uid ?? 0), gid: Number(value.gid ?? 0) };
}

/** Validates a bundle's config.json content (already parsed from JSON). */
export function parseOciSpec(value: unknown, where: string): OciSpec {
  if (!isRecord(value)) {
    throw new InvalidArgumentError(`${where}: the spec must be a JSON object`, 'SPEC.INVALID');
  }
  if (value.process === undefined) {
    throw new InvalidArgumentError(`${where}: the spec has no process; add process.args`, 'SPEC.NO_ARGS');
  }
  const root = isRecord(value.root) && typeof value.root.path === 'string' ? value.root.path : 'rootfs';
  const hostname = typeof value.hostname === 'string' ? value.hostname : undefined;
  return {
    process: parseOciProcess(value.process, where),
    rootPath: root,
    hostname,
    userNamespace: hasUserNamespace(value),
  };
}

function hasUserNamespace(spec: Record<string, unknown>): boolean {
  const linux = isRecord(spec.linux) ? spec.linux : {};
  const namespaces = Array.isArray(linux.namespaces) ? linux.namespaces : [];
  const mapped = (field: string) => Array.isArray(linux[field]) && (linux[field] as unknown[]).length > 0;
  return namespaces.some((ns) => isRecord(ns) && ns.type === 'user') || mapped('uidMappings') || mapped('gidMappings');
}

const ID_LIMIT = 2 ** 32;
/** The kernel's most lines in one uid_map or gid_map (UID_GID_MAP_MAX_EXTENTS). */
const MAX_EXTENTS = 340;

/**
 * Why the kernel would refuse the spec's id mappings, as user_namespaces(7) and map_write() say
 * (a range of size 0 or past 2^32 - 1 on either side, two ranges that overlap on either side,
 * more than 340 of them), or undefined when it would not. runc's own answer to such a mapping is
 * "can't get final child's PID from pipe: EOF" (its child dies writing uid_map), which names
 * nothing; this names the mapping. Host ids not mapped for the shim's user are the kernel's to refuse.
 */
export function idMappingProblem(linux: unknown): string | undefined {
  if (!isRecord(linux)) return undefined;
  for (const field of ['uidMappings', 'gidMappings'] as const) {
    const value = linux[field];
    if (value === undefined) continue;
    if (!Array.isArray(value)) return `linux.${field} must be a list`;
    const ranges: IdRange[] = [];
    for (const [i, entry] of value.entries()) {
      const numbers = isRecord(entry) ? [entry.containerID, entry.hostID, entry.size] : [];
      if (numbers.length !== 3 || numbers.some((n) => !Number.isInteger(n) || (n as number) < 0))
        return `linux.${field}[${i}] must hold containerID, hostID and size as whole numbers`;
      const [containerID, hostID, size] = numbers as number[];
      ranges.push({ containerID, hostID, size });
    }
    const problem = idRangesProblem(ranges, `linux.${field}`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** One range of a uid or gid mapping, as the OCI spec's linux.uidMappings holds it. */
export interface IdRange {
  readonly containerID: number;
  readonly hostID: number;
  readonly size: number;
}

/**
 * Why the kernel would refuse these ranges as one uid_map or gid_map (idMappingProblem's
 * rules), each range named `<field>[index]`; undefined when it would take them.
 */
export function idRangesProblem(ranges: readonly IdRange[], field: string): string | undefined {
  const name = (i: number) => `${field}[${i}]`;
  if (ranges.length > MAX_EXTENTS)
    return `${field} has ${ranges.length} ranges; the kernel takes at most ${MAX_EXTENTS}`;
  for (const [i, { containerID, hostID, size }] of ranges.entries()) {
    const range = `${name(i)} (containerID ${containerID}, hostID ${hostID}, size ${size})`;
    if (size === 0) return `${range} maps no id`;
    if (containerID + size > ID_LIMIT || hostID + size > ID_LIMIT) return `${range} goes past id ${ID_LIMIT - 1}`;
    const clash = ranges
      .slice(0, i)
      .findIndex(
        (other) =>
          (containerID < other.containerID + other.size && other.containerID < containerID + size) ||
          (hostID < other.hostID + other.size && other.hostID < hostID + size),
      );
    if (clash >= 0) return `${range} overlaps ${name(clash)}`;
  }
  return undefined;
}

/** The value of NAME in an OCI env list ("NAME=value"), or undefined. */
export function envValue(env: readonly string[], name: string): string | undefined {
  const prefix = `${name}=`;
  const entry = [...env].reverse().find((e) => e.startsWith(prefix));
  return entry?.slice(prefix.length);
}
