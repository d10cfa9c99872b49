/* The rules of package-code.h over the package's folders, and their judgement. */
#define _GNU_SOURCE
#include "package-code.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "root-owned.h"

/* Deeper than this in a folder walked whole is refused (a loop of links to directories). */
#define MAX_DEPTH 8

/*
 * What a root process of the shim runs or loads from the package (docs/install.md, "The package"
 * and "Which native parts are loaded"), a folder walked `whole` or only its entries. node-gyp-build
 * chooses the addon by what a folder holds, not by one name, so its folders are judged whole-sale:
 * whatever it picks, and whatever could be added beside it for it to pick, is root's.
 */
static const struct {
  const char *path;
  int whole;
} CODE[] = {
    /* Read by Node to run bin/'s scripts (its `type`), and by the daemon script (`engines`). */
    {"package.json", 0},
    /* containerd-daemon.js, loader.js (the bundle loader), the wrapper containerd runs. */
    {"bin", 1},
    /* The bundles and their V8 code caches (code: V8 runs what a cache holds), dist/node-path.
     * The bundles require only builtins, so the CLI's modules deeper in dist/ are not loaded. */
    {"dist", 0},
    /* prebuilds/<platform>-<arch>/: the addon node-gyp-build picks, skiff-gate, this binary (the keeper). */
    {"prebuilds", 1},
    /* A source build, which node-gyp-build takes first (Release, then Debug): the same, at the top. */
    {"build/Release", 0},
    {"build/Debug", 0},
};

/* Visits dir's entries, and with `whole` what is below them (through links to directories). */
static int each_entry(const char *dir, int whole, int depth, code_visit visit, void *ctx) {
  DIR *d = opendir(dir);
  if (d == NULL) return visit(dir, NULL, CODE_INSIDE, ctx);
  int rc = 0;
  const struct dirent *e;
  /* One thread (start, before the keeper forks): readdir is safe here; readdir_r is deprecated. */
  // cppcheck-suppress readdirCalled
  while (rc == 0 && (e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char path[PATH_MAX];
    struct stat st, target;
    if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) {
      errno = ENAMETOOLONG;
      rc = visit(dir, NULL, CODE_INSIDE, ctx);
    } else if (lstat(path, &st) != 0) {
      rc = visit(path, NULL, CODE_INSIDE, ctx);
    } else if ((rc = visit(path, &st, CODE_INSIDE, ctx)) == 0 && whole && stat(path, &target) == 0 &&
               S_ISDIR(target.st_mode)) {
      if (depth >= MAX_DEPTH) errno = ELOOP, rc = visit(path, NULL, CODE_INSIDE, ctx);
      else rc = each_entry(path, whole, depth + 1, visit, ctx);
    }
  }
  closedir(d);
  return rc;
}

int package_code_each(const char *pkg, code_visit visit, void *ctx) {
  for (size_t i = 0; i < sizeof CODE / sizeof CODE[0]; i++) {
    char path[PATH_MAX];
    struct stat st, target;
    int rc = 0;
    if (snprintf(path, sizeof path, "%s/%s", pkg, CODE[i].path) >= (int)sizeof path) {
      errno = ENAMETOOLONG;
      rc = visit(pkg, NULL, CODE_TOP, ctx);
    } else if (lstat(path, &st) != 0) {
      /* What the package lacks runs nothing (ENOTDIR: a file `build` holds no build/Release). */
      if (errno != ENOENT && errno != ENOTDIR) rc = visit(path, NULL, CODE_TOP, ctx);
    } else if ((rc = visit(path, &st, CODE_TOP, ctx)) == 0 && stat(path, &target) == 0 && S_ISDIR(target.st_mode)) {
      rc = each_entry(path, CODE[i].whole, 1, visit, ctx);
    }
    if (rc != 0) return rc;
  }
  return 0;
}

struct judging {
  char *bad, *why;
  size_t bad_size, why_size;
};

/* A named part and a link with every directory above it (and where a link leads); an entry alone. */
static int judge_part(const char *path, const struct stat *st, enum code_part part, void *ctx) {
  struct judging *j = ctx;
  int rc = 0;
  if (st == NULL) rc = (snprintf(j->why, j->why_size, "%s: %s", path, strerror(errno)), -1);
  else if (part == CODE_TOP || S_ISLNK(st->st_mode)) rc = root_owned_chain(path, NULL, 0, j->why, j->why_size);
  else rc = root_owned_entry(path, st, j->why, j->why_size);
  if (rc != 0) snprintf(j->bad, j->bad_size, "%s", path);
  return rc;
}

int package_code_judge(const char *pkg, char *bad, size_t bad_size, char *why, size_t why_size) {
  struct judging j = {.bad = bad, .why = why, .bad_size = bad_size, .why_size = why_size};
  return package_code_each(pkg, judge_part, &j) == 0 ? 0 : -1;
}
