/* The walk of root-owned.h: component by component from /, following links by hand. */
#define _GNU_SOURCE
#include "root-owned.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* At most this many links on one path, as the kernel's own limit (ELOOP). */
#define MAX_LINKS 40

/* 0 when only root can change what st (an lstat's) describes; else -1 with why. A link's mode
 * means nothing (always 0777), but its owner may replace it even where its directory is sticky
 * (/tmp): a link is judged by its owner, and where it leads by the walk. */
int root_owned_entry(const char *path, const struct stat *st, char *why, size_t why_size) {
  if (st->st_uid != 0) return snprintf(why, why_size, "%s is owned by uid %u", path, (unsigned)st->st_uid), -1;
  if (S_ISLNK(st->st_mode)) return 0;
  if ((st->st_mode & S_IWGRP) && st->st_gid != 0)
    return snprintf(why, why_size, "%s is writable by group %u", path, (unsigned)st->st_gid), -1;
  /* A sticky directory (/tmp): others may add entries but not replace root's. */
  if ((st->st_mode & S_IWOTH) && !(S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX)))
    return snprintf(why, why_size, "%s is writable by every user", path), -1;
  return 0;
}

int root_owned_chain(const char *path, char *resolved, size_t resolved_size, char *why, size_t why_size) {
  /* `done`: the resolved directory walked so far (no links in it, each part judged). `rest`: what is left. */
  char done[PATH_MAX], rest[PATH_MAX], next[PATH_MAX], target[PATH_MAX];
  struct stat st;
  if (path[0] != '/') return snprintf(why, why_size, "%s is not an absolute path", path), -1;
  if (snprintf(rest, sizeof rest, "%s", path) >= (int)sizeof rest) return snprintf(why, why_size, "path too long"), -1;
  done[0] = '\0';
  if (stat("/", &st) != 0 || root_owned_entry("/", &st, why, why_size) != 0) return -1;
  int links = 0;
  char *cursor = rest;
  while (*cursor != '\0') {
    while (*cursor == '/') cursor++;
    if (*cursor == '\0') break;
    size_t len = strcspn(cursor, "/");
    char part[NAME_MAX + 1];
    if (len > NAME_MAX) return snprintf(why, why_size, "a name in %s is too long", path), -1;
    memcpy(part, cursor, len);
    part[len] = '\0';
    cursor += len;
    if (strcmp(part, ".") == 0) continue;
    if (strcmp(part, "..") == 0) {
      char *slash = strrchr(done, '/');
      if (slash != NULL) *slash = '\0';
      continue;
    }
    if (snprintf(next, sizeof next, "%s/%s", done, part) >= (int)sizeof next)
      return snprintf(why, why_size, "%s: path too long", path), -1;
    if (lstat(next, &st) != 0) return snprintf(why, why_size, "%s: %s", next, strerror(errno)), -1;
    if (root_owned_entry(next, &st, why, why_size) != 0) return -1;
    if (S_ISLNK(st.st_mode)) {
      /* Where the link leads is walked as the rest. */
      if (++links > MAX_LINKS) return snprintf(why, why_size, "%s: %s", path, strerror(ELOOP)), -1;
      ssize_t n = readlink(next, target, sizeof target - 1);
      if (n < 0) return snprintf(why, why_size, "%s: %s", next, strerror(errno)), -1;
      target[n] = '\0';
      char joined[PATH_MAX];
      if (snprintf(joined, sizeof joined, "%s/%s", target, cursor) >= (int)sizeof joined)
        return snprintf(why, why_size, "%s: path too long", path), -1;
      memcpy(rest, joined, sizeof rest);
      cursor = rest;
      if (target[0] == '/') done[0] = '\0'; /* from / again; / was judged */
      continue;
    }
    memcpy(done, next, sizeof done);
  }
  /* What was judged, links resolved: what the caller is to run, so that no link is read again. */
  if (resolved != NULL && snprintf(resolved, resolved_size, "%s", done[0] != '\0' ? done : "/") >= (int)resolved_size)
    return snprintf(why, why_size, "%s: path too long", path), -1;
  return 0;
}
