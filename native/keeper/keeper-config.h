/* What `start` and the keeper derive alike from the flags and the first bundle (native/containerd-shim/: places.c, keep.c). */
#ifndef SKIFF_KEEPER_CONFIG_H
#define SKIFF_KEEPER_CONFIG_H

#include <limits.h>

struct keeper_config {
  const char *namespace, *address, *ttrpc_address;
  int debug;
  char group_socket[PATH_MAX], group_lock[PATH_MAX];
  char state_dir[PATH_MAX]; /* <state>/skiff/<namespace>: the serving process's --state-dir */
  char node[PATH_MAX], script[PATH_MAX];
};

#endif
