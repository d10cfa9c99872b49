/* The package this binary belongs to and the Node.js that runs its serving process (docs/install.md,
 * "Which Node.js the shim runs"). */
#ifndef SKIFF_SHIM_NODE_LOOKUP_H
#define SKIFF_SHIM_NODE_LOOKUP_H

#include <stddef.h>

#include "fail.h"

/* The package directory: this binary is <pkg>/build/Release/ or <pkg>/prebuilds/<platform>-<arch>/containerd-shim-skiff-v2. */
int package_dir(char *out, size_t size, struct fault *why);

int executable_file(const char *path);

/* `program` in a directory of containerd's PATH, into out; 0 when found. */
int program_on_path(const char *program, char *out, size_t size);

/* The Node.js that runs the serving process (choose_node), and as root only when root alone can
 * change it and the package's code (package-code.c). As root, `out` is the path judged with its
 * links resolved, which the serving process and the keeper run: a link read again later could lead
 * elsewhere. 0, or -1 with why (a logged fault: die_of_in). */
int find_node(const char *pkg, char *out, size_t size, struct fault *why);

#endif
