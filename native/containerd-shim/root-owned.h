/*
 * Whether a file that containerd-shim-skiff-v2 runs as root (node, the serving process's
 * script) can be changed by a user other than root: the file itself, or any directory on the
 * way to it from /, through every symbolic link, and each link itself (a link can be replaced by
 * whoever can write its directory, and by its owner in a sticky one). docs/install.md,
 * "Which Node.js the shim runs".
 */
#ifndef SKIFF_ROOT_OWNED_H
#define SKIFF_ROOT_OWNED_H

#include <stddef.h>
#include <sys/stat.h>

/*
 * 0 when `path` (absolute) and every directory above it, through links, are owned by root and
 * writable by no one else (group write only for group 0; a world-writable directory only with
 * the sticky bit, as /tmp), and every link on the way is owned by root. -1 otherwise, with what
 * is wrong in `why` ("<path> is owned by uid N", "is writable by group G", "is writable by
 * every user"), or why the path could not be followed (errno's text). With `resolved` (may be
 * NULL), the path walked, every link resolved: what to run, so that nothing is resolved twice.
 */
int root_owned_chain(const char *path, char *resolved, size_t resolved_size, char *why, size_t why_size);

/* The same judgement of one entry from its lstat, its directories judged already: 0, or -1 with why. */
int root_owned_entry(const char *path, const struct stat *st, char *why, size_t why_size);

#endif
