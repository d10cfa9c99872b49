/* root-owned.c: the walk from / through every directory and link to a file run as root. */
#define _GNU_SOURCE
#include "root-owned.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static char base[64], why[4200], resolved[4096];

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
  resolved[0] = '\0';
  return root_owned_chain(path, resolved, sizeof resolved, why, sizeof why);
}

int main(void) {
  CHECK(walk("relative/node") == -1);
  CHECK_STR(why, "relative/node is not an absolute path");
  CHECK(walk("/") == 0);
  CHECK_STR(resolved, "/");
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
  snprintf(want, sizeof want, "%s/ok", base);
  CHECK_STR(resolved, want);

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

  /* A link is followed: where it leads is judged, relative or absolute, and the link itself. */
  snprintf(path, sizeof path, "%s/to-user", base);
  CHECK(symlink("user", path) == 0);
  CHECK(walk(path) == -1);
  snprintf(want, sizeof want, "%s is owned by uid 1000", user);
  CHECK_STR(why, want);
  snprintf(path, sizeof path, "%s/to-ok", base);
  char target[256];
  snprintf(target, sizeof target, "%s/ok", base);
  CHECK(symlink(target, path) == 0);
  CHECK(walk(path) == 0);
  /* What was walked is what to run: the link resolved, not read again. */
  CHECK_STR(resolved, target);
  snprintf(path, sizeof path, "%s/to-ok/../group0", base);
  CHECK(walk(path) == 0);
  snprintf(want, sizeof want, "%s/group0", base);
  CHECK_STR(resolved, want);

  /* A link another user owns, in a sticky directory (/tmp): its owner may replace it (the sticky
   * bit keeps others out, not the owner), so it is refused wherever it leads. */
  const char *sticky = dirs[ndirs - 1];
  snprintf(path, sizeof path, "%s/node", sticky);
  CHECK(symlink(target, path) == 0 && lchown(path, 65534, 65534) == 0);
  CHECK(walk(path) == -1);
  snprintf(want, sizeof want, "%s is owned by uid 65534", path);
  CHECK_STR(why, want);
  /* ... and so is one on the way, a link to a directory. */
  snprintf(path, sizeof path, "%s/dir", sticky);
  CHECK(symlink(base, path) == 0 && lchown(path, 65534, 65534) == 0);
  char through[600];
  snprintf(through, sizeof through, "%s/ok", path);
  CHECK(walk(through) == -1);
  snprintf(want, sizeof want, "%s is owned by uid 65534", path);
  CHECK_STR(why, want);
  /* The same link, root's, passes. */
  CHECK(lchown(path, 0, 0) == 0);
  CHECK(walk(through) == 0);
  CHECK_STR(resolved, target);

  /* One entry judged alone (package-code.c's walk): as the chain judges each part. */
  struct stat st;
  snprintf(path, sizeof path, "%s/node", sticky);
  CHECK(lstat(path, &st) == 0 && root_owned_entry(path, &st, why, sizeof why) == -1);
  snprintf(want, sizeof want, "%s is owned by uid 65534", path);
  CHECK_STR(why, want);
  CHECK(lstat(world, &st) == 0 && root_owned_entry(world, &st, why, sizeof why) == -1);
  snprintf(want, sizeof want, "%s is writable by every user", world);
  CHECK_STR(why, want);
  CHECK(lstat(target, &st) == 0 && root_owned_entry(target, &st, why, sizeof why) == 0);

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
