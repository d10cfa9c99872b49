/*
 * The pod keeper (docs/keeper-protocol.md): one per pod, run as `containerd-shim-skiff-v2
 * ... keep` by `start`. It holds containerd's connections on the pod socket and relays
 * their ttrpc frames to the serving process, which it restarts when it dies.
 */
#ifndef SKIFF_KEEPER_H
#define SKIFF_KEEPER_H

#include <limits.h>

/* What `start` and the keeper derive alike from the flags and the first bundle (containerd-shim.c). */
struct keeper_config {
  const char *namespace, *address, *ttrpc_address;
  int debug;
  char group_socket[PATH_MAX], group_lock[PATH_MAX];
  char state_dir[PATH_MAX]; /* <state>/skiff/<namespace>: the serving process's --state-dir */
  char node[PATH_MAX], script[PATH_MAX];
};

/* One line on the keeper's stderr (the first bundle's log), prefixed with its name and pid. */
void keeper_say(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* The serving process said it hands over (`Q`, docs/upgrade.md): the close of each relay's
 * upstream that follows is not a loss that counts against it. */
void keeper_handing_over(void);

/* Runs the keeper on the pod listener (fd 3), telling its readiness on fd 4. Returns the exit status. */
int keeper_main(const struct keeper_config *config);

#endif
