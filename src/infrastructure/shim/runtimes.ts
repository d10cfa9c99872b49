/**
 * Every runtime `--runtime` takes, in one place: the flags' choices, the shim module's
 * factory (shim.module.ts) and containerd's serving process read it. Pure data, so the
 * small bundle that binds the socket first (entry/shim-listen.ts) can check a name.
 *
 * `oci` runtimes are OCI containers through a runc-compatible binary (same commands and
 * flags as runc); a binary such as crun is one more entry naming it.
 */
export type RuntimeEntry =
  | { readonly kind: 'native'; readonly summary: string }
  | { readonly kind: 'oci'; readonly binary: string; readonly summary: string };

export const RUNTIMES = {
  native: { kind: 'native', summary: 'native host processes' },
  runc: { kind: 'oci', binary: 'runc', summary: 'runc containers' },
} as const satisfies Record<string, RuntimeEntry>;

export type RuntimeName = keyof typeof RUNTIMES;

export const RUNTIME_NAMES = Object.keys(RUNTIMES) as RuntimeName[];

/** What `skiff shim serve` and `skiff run` use without --runtime. */
export const DEFAULT_RUNTIME: RuntimeName = 'native';

/**
 * containerd's tasks are OCI containers. A task's containerd.runc.v1.Options may still
 * name another runc-compatible binary (BinaryName), as with containerd's runc shim.
 */
export const CONTAINERD_RUNTIME: RuntimeName = 'runc';

export function isRuntimeName(value: string): value is RuntimeName {
  return Object.hasOwn(RUNTIMES, value);
}

export function runtimeEntry(name: RuntimeName): RuntimeEntry {
  return RUNTIMES[name];
}

/** The choices as --runtime's description lists them: "native host processes or runc containers". */
export function runtimeChoices(): string {
  const summaries = RUNTIME_NAMES.map((name) => RUNTIMES[name].summary);
  return summaries.length < 2 ? summaries.join('') : `${summaries.slice(0, -1).join(', ')} or ${summaries.at(-1)}`;
}
