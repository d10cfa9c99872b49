import { Stdio } from '../../../../../domain/shim/task-process';

/**
 * What to run: the resolved executable, its argv as the spec wrote it (argv[0]
 * included), env, cwd, the credentials to take, and stdio.
 */
export interface LaunchPlan {
  readonly file: string;
  readonly argv: readonly string[];
  readonly env: readonly string[];
  readonly cwd: string;
  readonly user: { readonly uid: number; readonly gid: number } | undefined;
  readonly stdio: Stdio;
  readonly subject: string;
}
