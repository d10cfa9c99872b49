/*
 * The keeper's one control connection to the serving process (docs/keeper-protocol.md,
 * "The control connection"): opened before the first relay and whenever the keeper holds a
 * process, `H` then the unacked `E`s first on each, requests in (with their descriptors),
 * replies and exits out. A malformed message closes it; the keeper opens another.
 */
#ifndef SKIFF_KEEPER_CONTROL_H
#define SKIFF_KEEPER_CONTROL_H

#include <stddef.h>
#include <stdint.h>
#include "keeper-config.h"

/*
 * What the serving process's requests do (held.h) and what a new connection says first (`H`):
 * given by keeper.c, so that this file knows the protocol, not what the keeper holds.
 */
struct control_handlers {
  /* `L`: fields as received (seq, key, pid file, console, roles, argv...), fds one per role (taken). */
  void (*launch)(const char *const *fields, int count, int *fds);
  void (*close_stdin)(const char *key);
  void (*resize)(const char *seq, const char *key, const char *width, const char *height);
  void (*start)(const char *seq, const char *key, const char *fifo);
  void (*ack)(const char *key);
  void (*release)(const char *key);
  /* `Q`: the closes of the relays' upstreams that follow are a hand-over's. */
  void (*handing_over)(void);
  /* On each new connection, before anything else: `H`, then the exits not acked. */
  void (*greet)(void);
};

void control_init(int epfd, const struct keeper_config *config, const char *fields, size_t fields_len,
                  const struct control_handlers *handlers);

/* Connects when not connected (starting a serving process if none answers), unless a retry is not due yet. */
void control_ensure(void);

/* Closes the connection (nothing held, no containerd connection: nothing to say). */
void control_close(void);

int control_connected(void);

void control_on_event(uint32_t events);

/* Reads the messages already waiting (a `Q` that came before the relays' closes it explains). */
void control_read_waiting(void);

/* Queues a message for the serving process; dropped when not connected (what must arrive is sent again on the next connection). */
void control_send(char type, const char *const *fields, int count);

/* Milliseconds until a due reconnect (-1: none due), and the reconnect itself, when `wanted` (keeper.c says when). */
int control_timeout(int wanted);
void control_tick(int wanted);

#endif
