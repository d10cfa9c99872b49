/* package-code.c: the package's code judged by its folders, whatever the files are called. */
#define _GNU_SOURCE
#include "package-code.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static char pkg[64], bad[PATH_MAX], why[PATH_MAX + 64];

/* pkg/<rel>, made (with its directories, 0755) a file of `mode` owned by root. */
static void file_at(const char *rel, mode_t mode) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", pkg, rel);
  for (char *slash = strchr(path + strlen(pkg) + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
    *slash = '\0';
    mkdir(path, 0755);
    *slash = '/';
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
  CHECK(fd >= 0 && fchmod(fd, mode) == 0 && close(fd) == 0);
}

static int judge(void) {
  bad[0] = why[0] = '\0';
  return package_code_judge(pkg, bad, sizeof bad, why, sizeof why);
}

/* With pkg/<rel> owned by uid 65534, the judgement is `refused` (naming it) or passes; then root's again. */
static void owned_by_nobody(const char *rel, int refused) {
  char path[PATH_MAX], want[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%s", pkg, rel);
  CHECK(lchown(path, 65534, 65534) == 0);
  if (refused) {
    CHECK(judge() == -1);
    CHECK_STR(bad, path);
    snprintf(want, sizeof want, "%s is owned by uid 65534", path);
    CHECK_STR(why, want);
  } else {
    CHECK(judge() == 0);
  }
  CHECK(lchown(path, 0, 0) == 0);
}

int main(void) {
  if (geteuid() != 0) {
    fprintf(stderr, "package-code.test: the package's owners are tested as root only\n");
    return CHECK_RESULT;
  }
  snprintf(pkg, sizeof pkg, "/tmp/skiff-package-code-XXXXXX");
  CHECK(mkdtemp(pkg) != NULL && chmod(pkg, 0755) == 0);
  /* An empty package has nothing to judge: what it lacks runs nothing. */
  CHECK(judge() == 0);
  /* Nor a file where a folder would be: no build/Release under a file `build`. */
  file_at("build", 0644);
  CHECK(judge() == 0);
  char build[PATH_MAX];
  snprintf(build, sizeof build, "%s/build", pkg);
  CHECK(unlink(build) == 0);

  file_at("package.json", 0644);
  file_at("bin/containerd-daemon.js", 0755);
  file_at("bin/run.js", 0755);
  file_at("dist/containerd.bundle.js", 0644);
  file_at("dist/containerd.bundle.js.cache", 0644);
  file_at("dist/adapters/shim/version-report.js", 0644);
  file_at("prebuilds/linux-x64/skiff.glibc.node", 0755);
  file_at("prebuilds/linux-x64/containerd-shim-skiff-v2", 0755);
  file_at("build/Release/skiff_native.node", 0755);
  file_at("build/Release/obj.target/skiff_native.o", 0644);
  CHECK(judge() == 0);

  /* Each file a root process loads, whatever its name: the addon node-gyp-build picks, a code cache. */
  owned_by_nobody("prebuilds/linux-x64/skiff.glibc.node", 1);
  owned_by_nobody("dist/containerd.bundle.js.cache", 1);
  owned_by_nobody("build/Release/skiff_native.node", 1);
  owned_by_nobody("bin/run.js", 1);
  owned_by_nobody("package.json", 1);
  /* The folders too: another user's prebuilds/linux-x64 could gain an addon node-gyp-build prefers. */
  owned_by_nobody("prebuilds/linux-x64", 1);
  owned_by_nobody("prebuilds", 1);
  /* What no root process loads: the CLI's modules below dist/, a source build's objects. */
  owned_by_nobody("dist/adapters/shim/version-report.js", 0);
  owned_by_nobody("build/Release/obj.target/skiff_native.o", 0);

  /* A directory above a named folder: the folder is refused, the directory named as why. */
  char path[PATH_MAX], want[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/build", pkg);
  CHECK(chown(path, 65534, 65534) == 0);
  CHECK(judge() == -1);
  snprintf(want, sizeof want, "%s/build/Release", pkg);
  CHECK_STR(bad, want);
  snprintf(want, sizeof want, "%s is owned by uid 65534", path);
  CHECK_STR(why, want);
  CHECK(chown(path, 0, 0) == 0);

  snprintf(path, sizeof path, "%s/prebuilds/linux-x64", pkg);
  CHECK(chmod(path, 0777) == 0);
  CHECK(judge() == -1);
  CHECK_STR(bad, path);
  snprintf(want, sizeof want, "%s is writable by every user", path);
  CHECK_STR(why, want);
  CHECK(chmod(path, 0755) == 0);

  /* A link in a code folder: its owner, and where it leads with every directory above that. */
  char elsewhere[64];
  snprintf(elsewhere, sizeof elsewhere, "/tmp/skiff-package-code-XXXXXX");
  CHECK(mkdtemp(elsewhere) != NULL && chmod(elsewhere, 0755) == 0 && chown(elsewhere, 65534, 65534) == 0);
  char target[PATH_MAX];
  snprintf(target, sizeof target, "%s/skiff.glibc.node", elsewhere);
  CHECK(close(open(target, O_WRONLY | O_CREAT, 0755)) == 0);
  snprintf(path, sizeof path, "%s/prebuilds/linux-x64/linked.node", pkg);
  CHECK(symlink(target, path) == 0);
  CHECK(judge() == -1);
  CHECK_STR(bad, path);
  snprintf(want, sizeof want, "%s is owned by uid 65534", elsewhere);
  CHECK_STR(why, want);
  /* ... through a link to a directory, what is in it. */
  CHECK(unlink(path) == 0 && chown(elsewhere, 0, 0) == 0);
  snprintf(path, sizeof path, "%s/prebuilds/linux-arm64", pkg);
  CHECK(symlink(elsewhere, path) == 0);
  CHECK(judge() == 0);
  CHECK(chown(target, 65534, 65534) == 0);
  CHECK(judge() == -1);
  snprintf(want, sizeof want, "%s/skiff.glibc.node", path);
  CHECK_STR(bad, want);

  char rm[160];
  snprintf(rm, sizeof rm, "rm -rf %s %s", pkg, elsewhere);
  CHECK(system(rm) == 0);
  return CHECK_RESULT;
}
