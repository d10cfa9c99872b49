/* places.h. */
#define _GNU_SOURCE
#include "places.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fail.h"
#include "task-group.h"
#include "task-layout.h"

void bundle_and_state(const struct flags *f, char *bundle, char *state) {
  if (f->bundle != NULL) path_or_die(layout_path(bundle, PATH_MAX, "%s", f->bundle), "-bundle");
  else if (getcwd(bundle, PATH_MAX) == NULL) die("cannot read the bundle dir", strerror(errno));
  if (!layout_safe_name(f->namespace) || !layout_safe_name(f->id))
    die("-namespace and -id must be containerd identifiers (letters and digits in runs joined by . _ -)", f->id);
  if (layout_state_of_bundle(bundle, state, PATH_MAX) != 0)
    die("the bundle is not under containerd's " LAYOUT_BUNDLES_MARK " (or " LAYOUT_SANDBOXES_MARK ") dir", bundle);
}

void make_skiff_dir(const char *state) {
  char dir[PATH_MAX];
  path_or_die(layout_path(dir, sizeof dir, "%s/" LAYOUT_SKIFF_DIR, state), state);
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) die("cannot make skiff's state dir", strerror(errno));
}

void group_files(const struct flags *f, const char *state, const char *bundle, char *socket_path,
                        char *lock_path) {
  char group[4096];
  struct fault why;
  /* Judged first: a bad policy is refused for every container, not only those it would decide. */
  int apart = pods_apart(&why);
  if (apart < 0 || task_group(bundle, apart, group, sizeof group, &why) != 0) die_of(&why);
  uint64_t h = layout_group_hash(f->address, f->namespace, group);
  make_skiff_dir(state);
  if (layout_group_file(socket_path, SUN_PATH_SIZE, state, h, ".sock") != 0)
    die("the group socket path is too long for a unix socket; give containerd a shorter state dir", state);
  path_or_die(layout_group_file(lock_path, PATH_MAX, state, h, ".lock"), state);
}

void serving_paths(const struct flags *f, const char *state, const char *pkg, char *script, char *state_dir,
                          char *ttrpc) {
  path_or_die(layout_path(script, PATH_MAX, "%s/bin/containerd-daemon.js", pkg), pkg);
  path_or_die(layout_server_state_dir(state_dir, PATH_MAX, state, f->namespace), state);
  const char *given = getenv("TTRPC_ADDRESS");
  if (given != NULL && *given != '\0') path_or_die(layout_path(ttrpc, PATH_MAX, "%s", given), "TTRPC_ADDRESS");
  else path_or_die(layout_path(ttrpc, PATH_MAX, "%s.ttrpc", f->address), "-address");
}
