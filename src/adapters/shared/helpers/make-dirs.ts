import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** "EACCES: permission denied, mkdir '/x'" -> "permission denied (EACCES)". */
export function fsReason(err: unknown): string {
  const { code, message } = err as NodeJS.ErrnoException;
  const text = /^\w+: ([^,]+)/.exec(message ?? '')?.[1];
  return text === undefined ? (code ?? String(err)) : `${text} (${code})`;
}

/**
 * mkdir -p with `mode` for the directories it creates. Node's own recursive mkdir
 * loops forever, using a whole CPU, when mkdir answers ENOENT under an existing
 * parent (any path below /proc does): this walks up once and gives up.
 */
export function makeDirs(path: string, mode: number): void {
  if (makeDir(path, mode) === 'ENOENT') {
    const parent = dirname(path);
    if (parent !== path) makeDirs(parent, mode);
    if (makeDir(path, mode) === 'ENOENT') mkdirSync(path, { mode });
  }
}

/** One mkdir: done (or there already, as a directory), or 'ENOENT'; anything else is thrown. */
function makeDir(path: string, mode: number): 'ENOENT' | undefined {
  try {
    mkdirSync(path, { mode });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return code;
    if (code !== 'EEXIST') throw err;
    if (!statSync(path).isDirectory()) {
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), { code: 'ENOTDIR' });
    }
  }
  return undefined;
}
