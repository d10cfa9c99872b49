/**
 * Whether containerd's environment asks for pod keepers (docs/keeper-protocol.md): they are
 * the default, and SKIFF_KEEPER=0 turns them off. Read by the serving process about itself,
 * and by `skiff containerd restart` about a running one (its /proc/<pid>/environ), so both
 * agree with `start` (native/containerd-shim/keeper-wanted.c) on every value: test/vectors/keeper-wanted.
 */
export function keepersWanted(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.SKIFF_KEEPER !== '0';
}
