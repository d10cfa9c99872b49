/*
 * Whether a file that containerd-shim-skiff-v2 runs as root (node, the serving process's
 * script) can be changed by a user other than root: the file itself, or any directory on the
 * way to it from /, through every symbolic link (a link can be replaced by whoever can write
 * its directory). docs/install.md, "On a Kubernetes node".
 */
#ifndef SKIFF_ROOT_OWNED_H
#define SKIFF_ROOT_OWNED_H

#include <stddef.h>

/*
 * 0 when `path` (absolute) and every directory above it, through links, are owned by root and
 * writable by no one else (group write only for group 0; a world-writable directory only with
 * the sticky bit, as /tmp). -1 otherwise, with what is wrong in `why` ("<path> is owned by uid
 * N", "is writable by group G", "is writable by every user"), or why the path could not be
 * followed (errno's text).
 */
int root_owned_chain(const char *path, char *why, size_t why_size);

#endif
