/*
 * What the keeper holds for the serving process (docs/keeper-protocol.md, "The control
 * connection"): per key, the program it launched, the process it keeps, their descriptors,
 * a terminal's copying, and the exit until it is acked.
 */
#ifndef SKIFF_KEEPER_HELD_H
#define SKIFF_KEEPER_HELD_H

#include <stdint.h>
#include "relay.h"

void held_init(int epfd);

/* Keys held (launching, running, or exited and not released). */
int held_count(void);

/* `L`: fields as received (seq, key, pid file, console, roles, argv...), fds one per role (taken). */
void held_launch(const char *const *fields, int count, int *fds);
void held_close_stdin(const char *key);
void held_resize(const char *seq, const char *key, const char *width, const char *height);
/* `S`: runc's start handshake with the key's init on `fifo` (exec-fifo.h); `s` answers once it is over. */
void held_start(const char *seq, const char *key, const char *fifo);
void held_ack(const char *key);
void held_release(const char *key);

/* Whether a key's process is `pid` and has not exited (the State cache's test of a running process). */
int held_runs(int pid);

/* Whether task `id`'s process (exec `exec_id`, "" for its init) exited and the serving process has not acked its `E` yet. */
int held_exit_unacked(const char *id, const char *exec_id);

/* A child the keeper reaped: 1 when it was a key's process (its exit changes a State), 0 for a
 * launching program (runc create, runc exec) or a process no key holds. */
int held_reaped(int pid, int status);

/* On each new control connection: `H`, then every exit not acked. */
void held_greet(void);

void held_on_fd(struct side *s, uint32_t events);

/* Milliseconds until held_tick has work (-1: none), the work (pipe drains, terminal deadlines), and freeing what was released. */
int held_timeout(void);
void held_tick(void);
void held_collect(void);

#endif
