/*
 * `serve`: the node daemon's supervisor (docs/node-daemon.md). A systemd unit runs it for a
 * containerd namespace, so the namespace's serving process is warm before the node's first pod
 * and its socket never refuses a connection while the unit runs.
 */
#ifndef SKIFF_SERVE_H
#define SKIFF_SERVE_H

#include "serving-argv.h"

struct serve_config {
  struct serving_command command; /* how Node is run; command.socket is the group socket */
  const char *group_lock;         /* the lock `start` and the keepers take before they bind the socket */
  const char *pid_file;           /* the serving process's pid file (src/adapters/shim/os/pid-file.ts) */
};

/* Holds the group socket and keeps one serving process on it until SIGTERM; the exit status. */
int serve_main(const struct serve_config *c);

#endif
