/*
 * The pod keeper (docs/keeper-protocol.md): one per pod, run as `containerd-shim-skiff-v2
 * ... keep` by `start`. It holds containerd's connections on the pod socket and relays
 * their ttrpc frames to the serving process, which it restarts when it dies.
 */
#ifndef SKIFF_KEEPER_H
#define SKIFF_KEEPER_H

#include "keeper-config.h"
#include "say.h"

/* Runs the keeper on the pod listener (fd 3), telling its readiness on fd 4. Returns the exit status. */
int keeper_main(const struct keeper_config *config);

#endif
