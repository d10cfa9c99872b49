/*
 * The State answers the keeper gives in the serving process's place (docs/keeper-protocol.md,
 * "State from the keeper"): the last State response the serving process gave for each process,
 * kept while nothing can have changed it, and given to containerd when the serving process
 * has not answered within the hedge time (it is starved, or restarting after a crash).
 */
#ifndef SKIFF_KEEPER_STATE_CACHE_H
#define SKIFF_KEEPER_STATE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define STATE_HEDGE_MS_DEFAULT 100

/* A State request from containerd, as the cache needs it. key: "<id>\0<exec id>"; NULL for any other request. */
struct state_ask {
  char *key;
  size_t key_len;
  unsigned long epoch; /* the cache's epoch when it was read */
  long read_ms;        /* monotonic, when it was read */
  int answered;        /* the keeper answered it: the serving process's answer is dropped */
  int tried;           /* the hedge time passed: the cache was asked once */
};

/*
 * `runs(pid)`: whether the keeper holds that pid and it has not exited. `exit_unacked(id, exec id)`:
 * whether that process's exit is told and not acked yet. hedge_ms: from SKIFF_KEEPER_STATE_MS or the default.
 */
void state_cache_configure(int (*runs)(int pid), int (*exit_unacked)(const char *id, const char *exec_id),
                           long hedge_ms);
long state_cache_hedge_ms(void);

/* A request's ttrpc payload: a State's ask filled (1), or 0 when it is no State the cache can key. */
int state_ask_read(struct state_ask *a, const unsigned char *request, size_t len, long now_ms);
/*
 * Whether `a` must wait for an ack before the serving process gets it: its process exited and
 * the serving process has not acked the `E`. The exit and the State come on two connections, and
 * a serving process that reads the State first would answer RUNNING for a process that is gone.
 */
int state_ask_waits(const struct state_ask *a);
void state_ask_free(struct state_ask *a);

/* One request in flight that may change a process, and what it may touch (state-cache.c). */
struct state_change;

/*
 * A request that may change a process (anything neither read-only nor state-neutral) read:
 * `method` and its ttrpc payload say what it may touch, whose kept answers it drops now and
 * again at its state_cache_change_end, once it is answered or dropped. NULL when out of memory:
 * it then counts as touching the whole pod, and state_cache_change_end(NULL) ends it.
 */
struct state_change *state_cache_change_begin(const char *method, const unsigned char *payload, size_t len);
void state_cache_change_end(struct state_change *change);
/* The epoch now: read just after a change's begin, it tells at its answer whether it was the only change meanwhile. */
unsigned long state_cache_epoch(void);
/*
 * A change answered, in state_cache_change_end's place: a successful Create's or Start's answer
 * (`status`: what state_learned_request said of its request, `a`'s key its process) that was the
 * only change since `began` leaves the State answer it implies kept, as if the serving process
 * had given it (state-learned.h).
 */
void state_cache_change_answered(struct state_change *change, const struct state_ask *a, int status, unsigned long began,
                                 const unsigned char *response, size_t len);
/* A process the keeper held exited: the answers naming its pid would say it runs (or, reused, another). */
void state_cache_forget_pid(uint64_t pid);

/* The serving process's ttrpc Response payload to `a`: kept when successful and nothing changed since `a` was read. */
void state_cache_keep(const struct state_ask *a, const unsigned char *response, size_t len);

/* A whole Response frame for `a` on `stream_id` from the cache (malloc'd, *len), or NULL when it holds no valid answer. */
unsigned char *state_cache_answer(const struct state_ask *a, uint32_t stream_id, size_t *len);

/* Entries kept: for tests. */
int state_cache_size(void);

#endif
