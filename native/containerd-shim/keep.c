/* `keep`: the pod keeper (native/keeper/, docs/keeper-protocol.md), run by `start`; it derives the
 * serving group as `start` does. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "keeper.h"
#include "node-lookup.h"
#include "places.h"
#include "verbs.h"

int do_keep(const struct flags *f) {
  struct keeper_config c;
  char bundle[PATH_MAX], state[PATH_MAX], pkg[PATH_MAX], ttrpc[PATH_MAX];
  memset(&c, 0, sizeof c);
  bundle_and_state(f, bundle, state);
  group_files(f, state, bundle, c.group_socket, c.group_lock);
  struct fault bad;
  if (package_dir(pkg, sizeof pkg, &bad) != 0 || find_node(pkg, c.node, sizeof c.node, &bad) != 0)
    die_of_in(bundle, &bad);
  serving_paths(f, state, pkg, c.script, c.state_dir, ttrpc);
  c.namespace = f->namespace;
  c.address = f->address;
  c.ttrpc_address = ttrpc;
  c.debug = f->debug;
  return keeper_main(&c);
}
