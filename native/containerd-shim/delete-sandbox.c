/*
 * `delete` in a sandbox's bundle (docs/sandbox-api.md, "Stop, Remove, restart"). After a
 * ShutdownSandbox the serving process has ended the sandbox process and containerd only tidies
 * up: an empty DeleteResponse. When the pod's keeper died instead, the sandbox process lives on,
 * re-parented, holding the pod's namespaces: this ends it, as `runc delete --force` ends a
 * task's container, and says DeleteResponse{pid, 137, now}. The pid is the one `sandbox` wrote
 * in the bundle, killed only while it still names a skiff-sandbox process. Either way the pod's
 * files go (src/adapters/shim/outbound/sandbox/cri-sandbox-files.ts makes them): ShutdownSandbox
 * removed them already unless the keeper died first.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "delete-response.h"
#include "read-all.h"
#include "remove-tree.h"
#include "task-layout.h"
#include "verbs.h"

/* containerd's CRI plugin's dirs under its root and its state (plugins/cri/runtime/plugin.go). */
#define CRI_SANDBOXES "io.containerd.grpc.v1.cri/sandboxes"
#define SANDBOX_CONTROLLER "io.containerd.sandbox.controller.v1.shim"

/* What `sandbox` names its holder (sandbox-hold.c), as /proc/<pid>/comm reads it. */
#define HOLDER_COMM "skiff-sandbox\n"

/* The pid in <bundle>/sandbox.pid while it is a skiff-sandbox process; else 0. */
static uint32_t running_holder(const char *bundle) {
  char path[4096];
  if (layout_path(path, sizeof path, "%s/sandbox.pid", bundle) != 0) return 0;
  char *text = read_file(path, 32, NULL);
  if (text == NULL) return 0;
  char *end;
  unsigned long pid = strtoul(text, &end, 10);
  int ok = end != text && *end == '\0' && pid > 1 && pid < (1UL << 30);
  free(text);
  if (!ok || layout_path(path, sizeof path, "/proc/%lu/comm", pid) != 0) return 0;
  char *comm = read_file(path, 64, NULL);
  int holder = comm != NULL && strcmp(comm, HOLDER_COMM) == 0;
  free(comm);
  return holder ? (uint32_t)pid : 0;
}

/* containerd's root: where the bundle's `work` link points, <root>/<controller>/<ns>/<id>, 3 levels up. -1 if it does not. */
static int containerd_root(const char *bundle, const char *id, char *root, size_t size) {
  char path[PATH_MAX], work[PATH_MAX];
  if (layout_path(path, sizeof path, "%s/work", bundle) != 0) return -1;
  ssize_t n = readlink(path, work, sizeof work - 1);
  if (n <= 0) return -1;
  work[n] = '\0';
  char *ns_end = strrchr(work, '/');
  if (ns_end == NULL || strcmp(ns_end + 1, id) != 0) return -1;
  *ns_end = '\0';
  char *controller_end = strrchr(work, '/');
  if (controller_end == NULL) return -1;
  *controller_end = '\0';
  char *controller = strrchr(work, '/');
  if (controller == NULL || strcmp(controller + 1, SANDBOX_CONTROLLER) != 0) return -1;
  *controller = '\0';
  return layout_path(root, size, "%s", work[0] == '\0' ? "/" : work);
}

/* The pod's files: the /dev/shm tmpfs unmounted, CRI's two dirs of the sandbox removed. */
static void remove_pod_files(const char *id, const char *bundle, const char *state) {
  char path[PATH_MAX], root[PATH_MAX];
  if (!layout_safe_name(id)) return;
  if (layout_path(path, sizeof path, "%s/" CRI_SANDBOXES "/%s/shm", state, id) == 0) umount2(path, MNT_DETACH);
  if (layout_path(path, sizeof path, "%s/" CRI_SANDBOXES "/%s", state, id) == 0) remove_tree(path);
  if (containerd_root(bundle, id, root, sizeof root) == 0 &&
      layout_path(path, sizeof path, "%s/" CRI_SANDBOXES "/%s", root, id) == 0)
    remove_tree(path);
}

int delete_sandbox(const char *id, const char *bundle, const char *state) {
  uint32_t pid = running_holder(bundle);
  if (pid != 0 && kill((pid_t)pid, SIGKILL) != 0) pid = 0;
  remove_pod_files(id, bundle, state);
  if (pid != 0) delete_response_print_killed(pid); /* else ended by its serving process: nothing left */
  return 0;
}
