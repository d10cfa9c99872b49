/*
 * The package's code that containerd-shim-skiff-v2's root processes run or load (the serving
 * process, the pod keeper), found by rules over the package's folders rather than by a list of
 * names: a list named an addon the package does not carry, and a file not there was not judged.
 * The rules and why each holds: package-code.c; what the package holds: docs/install.md, "The
 * package" (test/native/package-code.test.ts holds the rules to `npm pack`'s file list).
 */
#ifndef SKIFF_PACKAGE_CODE_H
#define SKIFF_PACKAGE_CODE_H

#include <stddef.h>
#include <sys/stat.h>

/* How a path of the package's code is to be judged. */
enum code_part {
  CODE_TOP,   /* a folder or file the rules name: with every directory above it, from / */
  CODE_INSIDE /* an entry found in one: its directory was judged already */
};

/* Called for each path; non-zero stops the walk and is returned. `st` is the path's lstat. */
typedef int (*code_visit)(const char *path, const struct stat *st, enum code_part part, void *ctx);

/* Calls visit on every path of the package's code under `pkg` (an absolute, resolved path);
 * what the rules name and the package lacks is skipped. 0, visit's non-zero, or -1 with errno
 * when a folder could not be read. */
int package_code_each(const char *pkg, code_visit visit, void *ctx);

/* 0 when root alone can change the package's code (root-owned.h's judgement of each path, a
 * link judged with where it leads). Else -1, with the path in `bad` and what is wrong in `why`. */
int package_code_judge(const char *pkg, char *bad, size_t bad_size, char *why, size_t why_size);

#endif
