/* Where a verb's files are, from its flags: the bundle and containerd's state dir, skiff's dir in it,
 * a group's socket and lock, and what the serving process runs with. A place that cannot be had
 * ends the shim in one line: every caller would. */
#ifndef SKIFF_SHIM_PLACES_H
#define SKIFF_SHIM_PLACES_H

#include <sys/un.h>

#include "flags.h"

#define SUN_PATH_SIZE sizeof(((struct sockaddr_un *)0)->sun_path)

/* The bundle (-bundle, else the working directory, as containerd runs the binary) and the state dir above it, each PATH_MAX. */
void bundle_and_state(const struct flags *f, char *bundle, char *state);

/* <state>/skiff, made 0700 when missing: the groups' and the pod keepers' sockets and locks. */
void make_skiff_dir(const char *state);

/* The socket (within sun_path) and lock of the group that serves the task in `bundle`, each PATH_MAX. */
void group_files(const struct flags *f, const char *state, const char *bundle, char *socket_path, char *lock_path);

/* What a group's serving process runs with besides its Node and socket, each PATH_MAX: the
 * script, its --state-dir and containerd's ttrpc address (TTRPC_ADDRESS, else <address>.ttrpc). */
void serving_paths(const struct flags *f, const char *state, const char *pkg, char *script, char *state_dir,
                   char *ttrpc);

#endif
