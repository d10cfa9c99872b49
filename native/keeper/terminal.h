/*
 * A kept process's terminal (docs/keeper-protocol.md, "The control connection": roles `O` and
 * `N`): the pty master the keeper holds, its output copied to `O` and `N` copied into it. The
 * copying never waits in the keeper's loop: what a full `O` does not take is held back and the
 * master not read meanwhile, so the process blocks on its terminal as on a full FIFO.
 */
#ifndef SKIFF_KEEPER_TERMINAL_H
#define SKIFF_KEEPER_TERMINAL_H

#include <stddef.h>
#include <stdint.h>
#include "relay.h"

/* Bytes of `N` the keeper holds for one terminal at most. */
#define TERMINAL_INPUT_MAX 65536

struct terminal {
  int epfd;
  int master, in, out; /* -1 when none */
  struct side master_side, input_side, output_side;
  /* Output `O` did not take yet; the master is not read meanwhile. */
  char *pending;
  size_t pending_off, pending_len;
  /* Input from `N` the terminal did not take yet (a process that does not read it, a paste
   * into a full line): written when the master is writable (EPOLLOUT), never waited for in the
   * loop; at most TERMINAL_INPUT_MAX, and `N` is not read while it is full (backpressure:
   * whoever writes `N` blocks on a full FIFO), so nothing is dropped. */
  char *input;
  size_t input_off, input_len;
  uint32_t master_events; /* what epoll watches on the master now (0: not registered) */
  int in_watched;
  int done; /* the master read EIO (no writer is left) and everything is closed */
};

/* No terminal yet; its sides' events go to `owner` (a held process, keeper.c's dispatch). */
void terminal_init(struct terminal *t, int epfd, void *owner);

/* The master came (runc's console socket): watched, with `N` if there is one. */
void terminal_watch(struct terminal *t, int master);

/* One event on one of its sides; 1 when the terminal has just finished (its last output copied). */
int terminal_on_event(struct terminal *t, enum side_kind kind, uint32_t events);

/* TIOCSWINSZ on the master: 0, or the errno. */
int terminal_resize(struct terminal *t, unsigned short cols, unsigned short rows);

/* Closes what it holds and frees what it held back. */
void terminal_close(struct terminal *t);

#endif
