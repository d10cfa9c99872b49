/* The keeper's side of the serving process: reaching it and starting it (the preamble: preamble.h). */
#ifndef SKIFF_KEEPER_SERVING_H
#define SKIFF_KEEPER_SERVING_H

#include <stddef.h>
#include "keeper-config.h"
#include "preamble.h"

/*
 * A connection to the serving group's socket, starting the serving process under the group
 * lock when none answers. Returns the connected, non-blocking, close-on-exec descriptor, or
 * -1 with one line of why in `why`.
 */
int serving_connect(const struct keeper_config *config, char *why, size_t why_size);

#endif
