/* The serving process's command line (serving-argv.h). */
#include "serving-argv.h"
#include "exec-report.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void serving_argv(const struct serving_command *c, char *argv[SERVING_ARGV_MAX]) {
  int n = 0;
  argv[n++] = (char *)c->node;
  /* V8's young generation grows towards 2 x 16 MiB in a long-lived process and RSS with it,
   * while the serving process's live heap stays under 10 MiB: capped at 2 x 1 MiB
   * (docs/reliability.md, "Nothing leaks in a long-lived serving process"). */
  argv[n++] = "--max-semi-space-size=1";
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
