/* The keeper's side of the serving process: reaching it, starting it, the connection preamble. */
#ifndef SKIFF_KEEPER_SERVING_H
#define SKIFF_KEEPER_SERVING_H

#include <stddef.h>
#include "keeper.h"

#define ROLE_CONTROL 1
#define ROLE_RELAY 2
#define ROLE_FORGET 3

/*
 * A connection to the serving group's socket, starting the serving process under the group
 * lock when none answers. Returns the connected, non-blocking, close-on-exec descriptor, or
 * -1 with one line of why in `why`.
 */
int serving_connect(const struct keeper_config *config, char *why, size_t why_size);

/* Writes the preamble for `role` with `fields` ("name=value\0..." of length fields_len). 0 on success. */
int serving_preamble(int fd, int role, const char *fields, size_t fields_len);

#endif
