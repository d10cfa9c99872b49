import { execFile } from 'node:child_process';
import { CliHome, CliResult, ROOT } from './skiff-home';

/** Runs `skiff <args>` through oclif alone, skipping bin/run.js's fast paths. */
export function viaOclif(
  home: CliHome,
  args: string[],
  options: { execArgv?: string[]; input?: string } = {},
): Promise<CliResult> {
  const script = `require('reflect-metadata'); require('@oclif/core').execute({ dir: ${JSON.stringify(`${ROOT}/bin/run.js`)}, args: ${JSON.stringify(args)} }).catch(require('@oclif/core/handle'))`;
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [...(options.execArgv ?? []), '-e', script],
      { env: home.env, cwd: ROOT },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(options.input ?? '');
  });
}
