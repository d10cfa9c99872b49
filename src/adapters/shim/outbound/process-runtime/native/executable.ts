import { statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { InvalidArgumentError } from '../../../../../domain/shared/errors';
import { envValue } from '../../../../../domain/shim/oci-spec';
import { DEFAULT_PATH, findInPath, isExecutableFile } from '../../../os/find-executable';

/**
 * Resolves args[0] the way execvp would (PATH from the process env), so that a
 * missing program is reported at Create/Exec rather than as a 127 exit after Start.
 */
export function resolveExecutable(program: string, env: readonly string[], cwd: string, subject: string): string {
  if (program.includes('/')) {
    const path = isAbsolute(program) ? program : join(cwd, program);
    if (isExecutableFile(path)) return path;
    throw new InvalidArgumentError(`${subject}: ${path} is not an executable file`, 'EXEC.NOT_FOUND');
  }
  const searchPath = envValue(env, 'PATH') ?? DEFAULT_PATH;
  const found = findInPath(program, searchPath, cwd);
  if (found !== undefined) return found;
  throw new InvalidArgumentError(
    `${subject}: executable ${JSON.stringify(program)} not found in PATH ${searchPath}`,
    'EXEC.NOT_FOUND',
  );
}

/** Checks the working directory exists, so spawn does not fail with a misleading ENOENT. */
export function assertDirectory(cwd: string, subject: string): void {
  let ok = false;
  try {
    ok = statSync(cwd).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) throw new InvalidArgumentError(`${subject}: working directory ${cwd} does not exist`, 'EXEC.BAD_CWD');
}
