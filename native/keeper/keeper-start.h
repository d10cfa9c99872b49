/* `start`'s part of the keeper (docs/keeper-protocol.md, `start`, steps 3-5). */
#ifndef SKIFF_KEEPER_START_H
#define SKIFF_KEEPER_START_H

#include <stddef.h>

/*
 * Makes sure a keeper serves `pod_socket`: returns 0 when one answers or was started and
 * said it is ready; else -1 with one line of why in `why`. `pod_lock` makes one of two racing
 * `start`s start it (both paths: native/common/task-layout.h). `argv` is the keeper's command
 * line (this binary, the flags, `keep`); `log_path` the bundle's log FIFO, its stderr.
 */
int keeper_ensure(const char *pod_socket, const char *pod_lock, char *const argv[], const char *log_path, char *why,
                  size_t why_size);

#endif
