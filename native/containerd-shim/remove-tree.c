#define _GNU_SOURCE
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "remove-tree.h"

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  /* A failure leaves that entry; the walk goes on to the rest. */
  (void)(type == FTW_DP ? rmdir(path) : unlink(path));
  return 0;
}

void remove_tree(const char *dir) { nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }
