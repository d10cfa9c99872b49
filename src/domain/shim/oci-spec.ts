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
  return { process: parseOciProcess(value.process, where), rootPath: root, hostname };
}

/** The value of NAME in an OCI env list ("NAME=value"), or undefined. */
export function envValue(env: readonly string[], name: string): string | undefined {
  const prefix = `${name}=`;
  const entry = [...env].reverse().find((e) => e.startsWith(prefix));
  return entry?.slice(prefix.length);
}
