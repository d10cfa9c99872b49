import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const RUNTIME_NAMES = ['native', 'runc'] as const;
export type RuntimeName = (typeof RUNTIME_NAMES)[number];

export interface ShimConfig {
  readonly address: string;
  readonly runtime: RuntimeName;
  /** Where the shim keeps per-task files (start gates, runc state); created 0700. */
  readonly stateDir: string;
}

/** $XDG_RUNTIME_DIR/skiff, else /run/skiff for root, else <tmp>/skiff-<uid>. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, 'skiff');
  const uid = process.getuid?.() ?? 0;
  return uid === 0 ? '/run/skiff' : join(tmpdir(), `skiff-${uid}`);
}

export function isRuntimeName(value: string): value is RuntimeName {
  return (RUNTIME_NAMES as readonly string[]).includes(value);
}
