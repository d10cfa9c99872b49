import { InvalidArgumentError } from '../shared/errors';

/** What `skiff run --env/--cwd` changes in a bundle's process, as `ctr run` does. */
export interface ProcessOverrides {
  /** NAME=value entries: each replaces the bundle's NAME, or is added. */
  readonly env: readonly string[];
  /** The working directory (absolute: inside the container for runc). */
  readonly cwd?: string;
}

export function hasOverrides(o: ProcessOverrides): boolean {
  return o.env.length > 0 || o.cwd !== undefined;
}

/** Refuses what would make a broken spec, naming the flag. */
export function checkOverrides(o: ProcessOverrides): void {
  for (const entry of o.env) {
    if (!/^[^=]+=/.test(entry)) {
      throw new InvalidArgumentError(`--env ${JSON.stringify(entry)} is not NAME=value`, 'RUN.ENV');
    }
  }
  if (o.cwd !== undefined && !o.cwd.startsWith('/')) {
    throw new InvalidArgumentError(
      `--cwd ${JSON.stringify(o.cwd)} must be an absolute path (the directory the process starts in)`,
      'RUN.CWD',
    );
  }
}

/** The env list with each override replacing the entry of the same name, or appended. */
export function mergeEnv(env: readonly string[], overrides: readonly string[]): string[] {
  const name = (entry: string) => entry.slice(0, entry.indexOf('='));
  const replaced = new Set(overrides.map(name));
  return [...env.filter((entry) => !replaced.has(name(entry))), ...overrides];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A copy of a bundle's config.json (parsed, every other field kept) for a bundle
 * elsewhere: the process gets the overrides, and a relative root.path is made
 * absolute against `source` so the copy still names the original rootfs.
 */
export function withOverrides(config: unknown, o: ProcessOverrides, source: string, where: string): unknown {
  if (!isRecord(config) || !isRecord(config.process)) {
    throw new InvalidArgumentError(`${where}: the spec has no process; add process.args`, 'SPEC.NO_ARGS');
  }
  const env = Array.isArray(config.process.env) ? config.process.env.map(String) : [];
  const process = { ...config.process, env: mergeEnv(env, o.env), ...(o.cwd === undefined ? {} : { cwd: o.cwd }) };
  const root = isRecord(config.root) ? config.root : { path: 'rootfs' };
  const path = typeof root.path === 'string' ? root.path : 'rootfs';
  const absolute = path.startsWith('/') ? path : `${source.replace(/\/+$/, '')}/${path}`;
  return { ...config, process, root: { ...root, path: absolute } };
}
