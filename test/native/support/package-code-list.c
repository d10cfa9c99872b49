/*
 * Prints each path native/containerd-shim/package-code.c's walk visits under argv[1], one a line:
 * what containerd-shim-skiff-v2 judges before it runs anything as root, for
 * test/native/package-code.test.ts to hold against the package's file list.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "package-code.h"

static int print(const char *path, const struct stat *st, enum code_part part, void *ctx) {
  (void)part;
  (void)ctx;
  if (st == NULL) return fprintf(stderr, "%s: %s\n", path, strerror(errno)), 1;
  return puts(path) < 0;
}

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: package-code-list <package dir>\n"), 2;
  return package_code_each(argv[1], print, NULL);
}
