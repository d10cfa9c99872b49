/* node-lookup.h. */
#define _GNU_SOURCE
#include "node-lookup.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fail.h"
#include "package-code.h"
#include "read-all.h"
#include "root-owned.h"
#include "task-layout.h"

/* path_or_die's line, returned. */
static int path_fault(struct fault *why, const char *what) {
  return fault_set(why, what, "a path is longer than PATH_MAX; give containerd a shorter state dir");
}

int package_dir(char *out, size_t size, struct fault *why) {
  ssize_t n = readlink("/proc/self/exe", out, size - 1);
  if (n < 0) return fault_set(why, fault_hold(why, strerror(errno)), "cannot find this binary");
  out[n] = '\0';
  for (int up = 0; up < 3; up++) {
    char *slash = strrchr(out, '/');
    if (slash == NULL) return fault_set(why, fault_hold(why, out), "unexpected location of this binary");
    *slash = '\0';
  }
  return 0;
}

int executable_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int program_on_path(const char *program, char *out, size_t size) {
  const char *path = getenv("PATH");
  while (path != NULL && *path != '\0') {
    size_t len = strcspn(path, ":");
    if (len > 0 && layout_path(out, size, "%.*s/%s", (int)len, path, program) == 0 && executable_file(out)) return 0;
    path += len + (path[len] == ':');
  }
  return -1;
}

/* The Node.js that runs the serving process (docs/install.md, "Which Node.js the shim runs"):
 * SKIFF_NODE in containerd's environment; else the node of the npm prefix skiff was installed into
 * globally (<prefix>/lib/node_modules/skiff-cli beside <prefix>/bin/node: where `npm install -g` and
 * the node it came with are); else the one that built skiff in a checkout (dist/node-path, not in the
 * package); else node on containerd's PATH, which a systemd unit keeps short. 0, or -1 with why. */
static int choose_node(const char *pkg, char *out, size_t size, struct fault *why) {
  char line[3 * PATH_MAX];
  const char *chosen = getenv("SKIFF_NODE");
  if (chosen != NULL && *chosen != '\0') {
    if (layout_path(out, size, "%s", chosen) != 0) return path_fault(why, "SKIFF_NODE");
    if (executable_file(out)) return 0;
    snprintf(line, sizeof line,
             "SKIFF_NODE=%s in containerd's environment is not an executable file: set it to the path of "
             "Node.js 20 or newer (`command -v node` where skiff was installed)",
             chosen);
    return fault_logged(why, line);
  }
  char prefix[PATH_MAX], beside[PATH_MAX + 64];
  snprintf(prefix, sizeof prefix, "%s", pkg);
  snprintf(beside, sizeof beside, "skiff (%s) is not in an npm prefix's lib/node_modules", pkg);
  char *mark = strstr(prefix, "/lib/node_modules/");
  if (mark != NULL && strchr(mark + strlen("/lib/node_modules/"), '/') == NULL) {
    *mark = '\0';
    if (layout_path(out, size, "%s/bin/node", prefix) == 0 && executable_file(out)) return 0;
    snprintf(beside, sizeof beside, "%s/bin/node (skiff's npm prefix) does not exist", prefix);
  }
  char recorded_path[PATH_MAX];
  if (layout_path(recorded_path, sizeof recorded_path, "%s/dist/node-path", pkg) != 0) return path_fault(why, pkg);
  char *recorded = read_file(recorded_path, PATH_MAX, NULL);
  if (recorded != NULL) {
    recorded[strcspn(recorded, "\n")] = '\0';
    int ok = recorded[0] != '\0' && layout_path(out, size, "%s", recorded) == 0 && executable_file(out);
    free(recorded);
    if (ok) return 0;
  }
  if (program_on_path("node", out, size) == 0) return 0;
  const char *path = getenv("PATH");
  snprintf(line, sizeof line,
           "no Node.js to run skiff's serving process: SKIFF_NODE is unset, %s, and containerd's PATH (%s) "
           "has no node; set SKIFF_NODE=/path/to/node (Node.js 20 or newer) in containerd's environment "
           "(systemctl edit containerd: Environment=SKIFF_NODE=...)",
           beside, path != NULL ? path : "unset");
  return fault_logged(why, line);
}

/* As root, a file whose content or path a user other than root can change is refused in one
 * line (containerd's log and its client): it would run that user's code as root. -1 with that line. */
static int refuse(const char *path, const char *why, struct fault *refused) {
  char line[3 * PATH_MAX + 320];
  snprintf(line, sizeof line,
           "refusing to run %s as root: %s; make it and every directory above it owned by root and writable by "
           "root only (chown root:root, chmod go-w), or install skiff and Node.js under a root-owned prefix "
           "(docs/install.md)",
           path, why);
  return fault_logged(refused, line);
}

int find_node(const char *pkg, char *out, size_t size, struct fault *refused) {
  if (choose_node(pkg, out, size, refused) != 0) return -1;
  if (geteuid() != 0) return 0;
  char why[PATH_MAX + 64], resolved[PATH_MAX], bad[PATH_MAX];
  if (root_owned_chain(out, resolved, sizeof resolved, why, sizeof why) != 0) return refuse(out, why, refused);
  if (layout_path(out, size, "%s", resolved) != 0) return path_fault(refused, fault_hold(refused, resolved));
  if (package_code_judge(pkg, bad, sizeof bad, why, sizeof why) != 0) return refuse(bad, why, refused);
  return 0;
}
