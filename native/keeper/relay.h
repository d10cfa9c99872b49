/*
 * One containerd connection and its relay connection to the serving process
 * (docs/keeper-protocol.md, "The relay"): whole ttrpc frames both ways, the requests in
 * flight, and what happens to them when the serving process goes away.
 */
#ifndef SKIFF_KEEPER_RELAY_H
#define SKIFF_KEEPER_RELAY_H

#include <stddef.h>
#include <stdint.h>
#include "state-cache.h"
#include "ttrpc-wire.h"

/* Frames from containerd wait up to this much while no serving process reads them; then reading stops. */
#define WAITING_MAX (16u << 20)

/* One whole frame: queued for a side, or (a request) in flight at the serving process. */
struct frame {
  struct frame *next;
  uint32_t stream_id;
  uint8_t type;
  char method[METHOD_MAX];
  size_t len, written;
  unsigned char *data; /* header + payload; NULL for a request in flight that will not be sent again */
  struct state_ask ask; /* a State request's (state-cache.h) */
  int change;           /* a request that may change a process, counted in the cache until freed */
  struct state_change *scope; /* its scope there (state_cache_change_begin) */
  /* A change's process and the status its success gives it (state-learned.h), and the cache's epoch as it began. */
  struct state_ask changed;
  int change_status;
  unsigned long change_epoch;
};

struct queue {
  struct frame *head, *tail;
  size_t bytes;
};

/* Bytes of a frame not yet whole: at most one frame (4 MiB + 10) per side. `discard`: bytes
 * still to come of a frame over 4 MiB from containerd, read and dropped as they arrive; its
 * stream and length are answered once the last has passed. */
struct partial {
  unsigned char *data;
  size_t len, cap;
  size_t discard;
  uint32_t discard_stream, discard_length;
};

struct relay;

/* What an epoll event points at: one side of one relay, or (kind not SIDE_RELAY) another of the keeper's descriptors. */
enum side_kind { SIDE_RELAY, SIDE_OTHER, SIDE_CONTROL, SIDE_MASTER, SIDE_INPUT, SIDE_OUTPUT, SIDE_FIFO };

struct side {
  struct relay *relay;
  int is_up;
  enum side_kind kind;
  void *owner; /* a held process, for SIDE_MASTER, SIDE_INPUT, SIDE_OUTPUT and SIDE_FIFO */
};

enum { SHUTDOWN_TASK = 1, SHUTDOWN_SANDBOX = 2 };

struct relay {
  struct relay *prev, *next;
  int down, up; /* containerd's connection; the serving process's, or -1 */
  struct side down_side, up_side;
  uint32_t down_events, up_events; /* what epoll watches now */
  struct partial from_down, from_up;
  struct queue to_up, to_down, in_flight;
  /* State requests waiting for the ack of their process's exit (state_ask_waits), in order. */
  struct queue parked;
  /* A successful Shutdown response is queued for containerd: SHUTDOWN_TASK, or SHUTDOWN_SANDBOX
   * (ShutdownSandbox, whose caller fails on a close that races its answer: the keeper waits for
   * containerd to hang up, docs/keeper-protocol.md). */
  int shutdown_ok;
  int losses;      /* upstreams lost since the last response from one */
  int asked;        /* containerd made a call on this connection (not only a probe by `start`) */
  int said_goodbye; /* a successful Shutdown reached containerd on this connection: SHUTDOWN_TASK or SHUTDOWN_SANDBOX */
  /* The serving process takes no more requests on this upstream (a hand-over shut its reading
   * side, or it died): nothing more is written to it, and its replies are read until it closes. */
  int up_refused;
  /* The upstream said it hands over (`Q`): its close is not counted in `losses`. */
  int up_handing_over;
  /* The upstream ended with ECONNRESET: the serving process left bytes of it unread. */
  int up_reset;
  /* The request written last, its bytes kept while in flight (relay_lose_upstream). */
  struct frame *newest;
};

/* Why a side failed: the relay's owner decides what that ends. */
enum relay_result { RELAY_OK, RELAY_DOWN_GONE, RELAY_UP_GONE };

struct relay *relay_new(int down);
void relay_free(struct relay *r);

/* Reads what `is_up`'s side has, queues whole frames for the other side. */
enum relay_result relay_read(struct relay *r, int is_up);
/* Writes what is queued for `is_up`'s side. A write the upstream refuses is not its loss: its
 * reading side says when it is gone, after the replies it still owes. */
enum relay_result relay_write(struct relay *r, int is_up);

/*
 * The serving process went away: forget the partial reply, send again the read-only
 * requests in flight (ahead of those waiting) and, when the upstream ended with unread bytes,
 * the newest request (it never reached the server whole), answer the others UNAVAILABLE.
 * Counts a loss unless it said it hands over.
 */
void relay_lose_upstream(struct relay *r);

/* Queues for the serving process the parked State requests whose process's exit is acked now; how many. */
int relay_unpark(struct relay *r);

/* Whether the relay has frames for an upstream it does not have. */
int relay_needs_upstream(const struct relay *r);

/*
 * The State requests the serving process has not answered within the hedge time, answered from
 * the keeper's cache where it holds a valid answer (state-cache.h); its later answer is dropped.
 * Returns the milliseconds until the next such request is due, or -1.
 */
long relay_answer_overdue(struct relay *r, long now_ms);

/* Monotonic milliseconds: when a request was read, for relay_answer_overdue. */
long relay_now_ms(void);

/* Answers every request queued for the serving process with UNAVAILABLE and `message`. */
void relay_refuse_waiting(struct relay *r, const char *message);

#endif
