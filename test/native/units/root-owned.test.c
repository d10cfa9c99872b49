/* root-owned.c: the walk from / through every directory and link to a file run as root. */
#define _GNU_SOURCE
#include "root-owned.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static char base[64], why[4200];

/* base/<name>, made a directory of `mode` owned by uid/gid; the path is in a buffer of its own. */
static char dirs[8][256];
static int ndirs;
static const char *dir_at(const char *name, mode_t mode, uid_t uid, gid_t gid) {
  char *path = dirs[ndirs++];
  snprintf(path, sizeof dirs[0], "%s/%s", base, name);
  CHECK(mkdir(path, 0700) == 0 && chmod(path, mode) == 0 && chown(path, uid, gid) == 0);
  return path;
}

static int walk(const char *path) {
  why[0] = '\0';
  return root_owned_chain(path, why, sizeof why);
}

int main(void) {
  CHECK(walk("relative/node") == -1);
  CHECK_STR(why, "relative/node is not an absolute path");
  CHECK(walk("/") == 0);
  if (geteuid() != 0) {
    fprintf(stderr, "root-owned.test: the walk's owners are tested as root only\n");
    return CHECK_RESULT;
  }
  snprintf(base, sizeof base, "/tmp/skiff-root-owned-XXXXXX");
  CHECK(mkdtemp(base) != NULL && chmod(base, 0755) == 0);
  char path[512], want[600];

  CHECK(walk(base) == 0);
  dir_at("ok", 0755, 0, 0);
  snprintf(path, sizeof path, "%s/./ok/../ok//", base);
  CHECK(walk(path) == 0);

  const char *user = dir_at("user", 0755, 1000, 1000);
  CHECK(walk(user) == -1);
  snprintf(want, sizeof want, "%s is owned by uid 1000", user);
  CHECK_STR(why, want);
  /* `..` does not undo a part walked through: user/../ok passes through the user's directory. */
  snprintf(path, sizeof path, "%s/user/../ok", base);
  CHECK(walk(path) == -1);

  const char *group = dir_at("group", 0775, 0, 1000);
  CHECK(walk(group) == -1);
  snprintf(want, sizeof want, "%s is writable by group 1000", group);
  CHECK_STR(why, want);
  CHECK(walk(dir_at("group0", 0775, 0, 0)) == 0);

  const char *world = dir_at("world", 0777, 0, 0);
  CHECK(walk(world) == -1);
  snprintf(want, sizeof want, "%s is writable by every user", world);
  CHECK_STR(why, want);
  CHECK(walk(dir_at("sticky", 01777, 0, 0)) == 0);

  /* A link is followed: where it leads is judged, relative or absolute, not the link itself. */
  snprintf(path, sizeof path, "%s/to-user", base);
  CHECK(symlink("user", path) == 0 && lchown(path, 1000, 1000) == 0);
  CHECK(walk(path) == -1);
  snprintf(want, sizeof want, "%s is owned by uid 1000", user);
  CHECK_STR(why, want);
  snprintf(path, sizeof path, "%s/to-ok", base);
  char target[256];
  snprintf(target, sizeof target, "%s/ok", base);
  CHECK(symlink(target, path) == 0 && lchown(path, 1000, 1000) == 0);
  CHECK(walk(path) == 0);

  /* A loop of links ends (ELOOP), a missing part and a name past NAME_MAX are errors. */
  snprintf(path, sizeof path, "%s/loop-a", base);
  CHECK(symlink("loop-b", path) == 0);
  snprintf(path, sizeof path, "%s/loop-b", base);
  CHECK(symlink("loop-a", path) == 0);
  CHECK(walk(path) == -1);
  CHECK(strstr(why, strerror(ELOOP)) != NULL);
  snprintf(path, sizeof path, "%s/missing/node", base);
  CHECK(walk(path) == -1);
  CHECK(strstr(why, strerror(ENOENT)) != NULL);
  char long_name[300];
  memset(long_name, 'x', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  snprintf(path, sizeof path, "%s/%s", base, long_name);
  CHECK(walk(path) == -1);
  CHECK(strstr(why, "too long") != NULL);

  char rm[128];
  snprintf(rm, sizeof rm, "rm -rf %s", base);
  CHECK(system(rm) == 0);
  return CHECK_RESULT;
}
