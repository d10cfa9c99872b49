/* The serving process's command line (serving-argv.h). */
#include "serving-argv.h"
#include "exec-report.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The Node.js flags of the serving process. V8 rejects a code cache made under other V8
 * flags, so scripts/bundle.js reads this list (the quoted strings between the markers) and
 * writes dist/containerd.bundle.js.cache under the same ones. */
static const char *const NODE_FLAGS[] = {
    /* node-flags:begin */
    /* V8's young generation grows towards 2 x 16 MiB in a long-lived process and RSS with it,
     * while the serving process's live heap stays under 10 MiB: capped at 2 x 1 MiB
     * (docs/reliability.md, "Nothing leaks in a long-lived serving process"). */
    "--max-semi-space-size=1",
    /* No TurboFan: in a process that serves for as long as the node runs, its optimised code,
     * the compiler's own pages of the node binary and its zones grew RSS by ~11 MB over 230
     * containers, for ~2 ms of CPU a container; Ignition and Sparkplug stay (docs/performance.md,
     * "The serving process's memory"). */
    "--no-opt",
    /* node-flags:end */
};
#define NODE_FLAG_COUNT (sizeof NODE_FLAGS / sizeof NODE_FLAGS[0])
/* node, the flags, the script, five options with their values, --debug, --gate with its fd and the NULL. */
_Static_assert(1 + NODE_FLAG_COUNT + 1 + 10 + 1 + 2 + 1 <= SERVING_ARGV_MAX, "SERVING_ARGV_MAX is too small");

void serving_argv(const struct serving_command *c, char *argv[SERVING_ARGV_MAX]) {
  int n = 0;
  argv[n++] = (char *)c->node;
  for (size_t i = 0; i < NODE_FLAG_COUNT; i++) argv[n++] = (char *)NODE_FLAGS[i];
  argv[n++] = (char *)c->script;
  argv[n++] = "--namespace";
  argv[n++] = (char *)c->namespace;
  argv[n++] = "--address";
  argv[n++] = (char *)c->address;
  argv[n++] = "--ttrpc-address";
  argv[n++] = (char *)c->ttrpc_address;
  argv[n++] = "--state-dir";
  argv[n++] = (char *)c->state_dir;
  argv[n++] = "--socket";
  argv[n++] = (char *)c->socket;
  if (c->debug) argv[n++] = "--debug";
  if (c->gate != NULL) {
    argv[n++] = "--gate";
    argv[n++] = (char *)c->gate;
  }
  argv[n] = NULL;
}

void serving_exec_error(char *out, size_t size, const char *node, int err) {
  snprintf(out, size,
           "cannot run %s (%s): set SKIFF_NODE=/path/to/node (Node.js 20 or newer) in containerd's environment", node,
           strerror(err));
}

void serving_exec(const struct serving_command *c, int report) {
  char *args[SERVING_ARGV_MAX];
  serving_argv(c, args);
  execv(c->node, args);
  exec_report_failed(report);
}
