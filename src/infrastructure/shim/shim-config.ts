import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RuntimeName } from './runtimes';

export interface ShimConfig {
  readonly address: string;
  readonly runtime: RuntimeName;
  /** Where the shim keeps per-task files (start gates, runc state); created 0700. */
  readonly stateDir: string;
  /** The shim of one `skiff run`: its directory, removed when the shim exits. */
  readonly runDir?: string;
  /** Exit (ending every task, as on SIGTERM) when stdin reaches end-of-file: the starter is gone. */
  readonly lifeline?: boolean;
}

/** The environment variable naming the shim's socket, as CONTAINERD_ADDRESS does for ctr. */
export const ADDRESS_VARIABLE = 'SKIFF_ADDRESS';

/** skiff's runtime files: $XDG_RUNTIME_DIR/skiff, else /run/skiff for root, else <tmp>/skiff-<uid>. */
export function runtimeDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, 'skiff');
  const uid = process.getuid?.() ?? 0;
  return uid === 0 ? '/run/skiff' : join(tmpdir(), `skiff-${uid}`);
}

/** The socket `skiff shim serve` and `skiff task` use without --address or $SKIFF_ADDRESS. */
export function defaultAddress(env: NodeJS.ProcessEnv = process.env): string {
  return join(runtimeDir(env), 'shim.sock');
}

/** Where `skiff run` keeps one directory per run, named by its task id. */
export function runsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(runtimeDir(env), 'runs');
}

/** The state directory of a shim started without --state-dir. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(runtimeDir(env), 'state');
}
