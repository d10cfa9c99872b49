/*
 * The serving process's command line, shared by `start` (start.c) and the pod
 * keeper (native/keeper/serving.c), so both start Node alike (docs/containerd.md).
 */
#ifndef SKIFF_SERVING_ARGV_H
#define SKIFF_SERVING_ARGV_H

#include <stddef.h>

struct serving_command {
  const char *node, *script; /* Node.js and <pkg>/bin/containerd-daemon.js */
  const char *namespace, *address, *ttrpc_address;
  const char *state_dir, *socket; /* --state-dir and the group socket (the listener is fd 3) */
  int debug;
  const char *gate; /* a standby's gate fd (serve.c), as text; NULL for a serving process */
};

/* The most entries serving_argv writes, its NULL included. */
#define SERVING_ARGV_MAX 20

/* Fills argv (SERVING_ARGV_MAX entries) for execv(c->node, argv); it points into c. */
void serving_argv(const struct serving_command *c, char *argv[SERVING_ARGV_MAX]);

/* Execs Node on `c` (its stdio and the listener on fd 3 in place); if that fails, tells
 * `report` (exec-report.h) and exits 127. */
_Noreturn void serving_exec(const struct serving_command *c, int report);

/* The one line when `node` cannot be exec'd (errno `err`), into out: `start` and the keeper say it alike. */
void serving_exec_error(char *out, size_t size, const char *node, int err);

#endif
