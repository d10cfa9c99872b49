/* `serve`'s command line judged and turned into serve.c's config. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "fail.h"
#include "keeper-wanted.h"
#include "node-lookup.h"
#include "places.h"
#include "serve.h"
#include "task-group.h"
#include "task-layout.h"
#include "verbs.h"

#define DEFAULT_STATE "/run/containerd"

/* `serve`: the namespace's serving process kept by a systemd unit (serve.c, docs/node-daemon.md),
 * on the socket `start` and the keepers derive for the namespace's default group. */
int do_serve(const struct flags *f) {
  if (!layout_safe_name(f->namespace))
    die("-namespace must be a containerd namespace (letters and digits in runs joined by . _ -)", f->namespace);
  if (f->address[0] != '/') die("-address must be containerd's socket path, as containerd gives it to shims", f->address);
  if (!keeper_wanted())
    die("serve keeps a serving process behind pod keepers; SKIFF_KEEPER=0 serves without them: unset it", NULL);
  struct fault bad;
  int apart = pods_apart(&bad);
  if (apart < 0) die_of(&bad);
  if (apart)
    die("serve keeps the namespace's serving process; SKIFF_SHIM_GROUP=pod gives each pod its own: unset it", NULL);
  const char *state = f->state != NULL ? f->state : DEFAULT_STATE;
  /* The serving process works from / (serve.c): a relative path would name another directory there. */
  if (state[0] != '/') die("-state must be containerd's state dir as an absolute path", state);
  char socket_path[PATH_MAX], lock_path[PATH_MAX], pid_file[PATH_MAX], pkg[PATH_MAX], node[PATH_MAX];
  char script[PATH_MAX], state_dir[PATH_MAX], ttrpc[PATH_MAX];
  make_skiff_dir(state);
  uint64_t h = layout_group_hash(f->address, f->namespace, "");
  if (layout_group_file(socket_path, SUN_PATH_SIZE, state, h, ".sock") != 0)
    die("the group socket path is too long for a unix socket; give containerd a shorter state dir", state);
  path_or_die(layout_group_file(lock_path, sizeof lock_path, state, h, ".lock"), state);
  path_or_die(layout_group_file(pid_file, sizeof pid_file, state, h, ".pid"), state);
  if (package_dir(pkg, sizeof pkg, &bad) != 0 || find_node(pkg, node, sizeof node, &bad) != 0) die_of(&bad);
  serving_paths(f, state, pkg, script, state_dir, ttrpc);
  const struct serve_config c = {
      .command = {.node = node, .script = script, .namespace = f->namespace, .address = f->address,
                  .ttrpc_address = ttrpc, .state_dir = state_dir, .socket = socket_path, .debug = f->debug},
      .group_lock = lock_path,
      .pid_file = pid_file,
  };
  return serve_main(&c);
}
