/* The shim binary's command line, as containerd passes it (runtime/v2/shim's flags). */
#ifndef SKIFF_SHIM_FLAGS_H
#define SKIFF_SHIM_FLAGS_H

#include <stddef.h>

struct flags {
  const char *namespace, *address, *publish_binary, *id, *bundle, *action;
  const char *state; /* -state: containerd's state dir, for `serve` (NULL: /run/containerd) */
  int debug, version, info;
};

/*
 * Reads argv as Go's flag package does (-name value, -name=value, --name; a boolean -debug or
 * -debug=true|false; -v or -version, which containerd's shims answer with their version; a boolean
 * -info, containerd 2.x's question for the shim's RuntimeInfo; `--` ends the flags), the action
 * being the one argument that is not a flag. Flags of other containerd versions (-socket, -shim-*)
 * take a value and are ignored. Returns 0, or -1 with one line of why in `why`.
 */
int parse_flags(int argc, char *const *argv, struct flags *f, char *why, size_t why_size);

#endif
