import { accessSync, constants, statSync } from 'node:fs';
import { join } from 'node:path';

/** The search path when an environment has none (runc's default for a process). */
export const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** True for a regular file this process may execute. */
export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The first executable `program` in the directories of `searchPath` (execvp's order); '' entries mean `cwd`. */
export function findInPath(program: string, searchPath: string, cwd = process.cwd()): string | undefined {
  for (const dir of searchPath.split(':')) {
    const candidate = join(dir === '' ? cwd : dir, program);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}
