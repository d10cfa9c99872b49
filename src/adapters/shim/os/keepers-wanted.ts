/**
 * Whether containerd's environment asks for pod keepers (docs/keeper-protocol.md): read by
 * the serving process about itself, and by `skiff containerd restart` about a running one
 * (its /proc/<pid>/environ), so both agree on what the default is.
 */
export function keepersWanted(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.SKIFF_KEEPER === '1';
}
