/* The relay's frames and in-flight rules (docs/keeper-protocol.md, "The relay"). */
#define _GNU_SOURCE
#include "relay.h"
#include "state-learned.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define READ_CHUNK 65536
/* A partial buffer this large is given back once empty, so one big Create does not stay held. */
#define PARTIAL_KEEP (256u << 10)

/* The task service's, then the Sandbox service's (docs/sandbox-api.md): a WaitSandbox refused
 * at a crash would be the pod's end to containerd's CRI, as a Wait's is the container's. */
static const char *const READ_ONLY[] = {"Wait",          "State",    "Pids",        "Stats",         "Connect",
                                        "WaitSandbox",   "Platform", "PingSandbox", "SandboxStatus", "SandboxMetrics"};

/* Requests that change nothing: sent again on the new upstream instead of being refused. */
static int read_only(const char *method) {
  for (size_t i = 0; i < sizeof READ_ONLY / sizeof READ_ONLY[0]; i++)
    if (strcmp(method, READ_ONLY[i]) == 0) return 1;
  return 0;
}

/*
 * Requests that change a task but no field of a State answer (id, bundle, pid, status, stdio
 * paths, terminal, exit): they leave kept answers standing. A process that exits because its
 * stdin closed is a reap, which drops them anyway. `ctr task exec` sends CloseIO beside its
 * Start, and a resize comes with every terminal's window change.
 */
static const char *const STATE_NEUTRAL[] = {"CloseIO", "ResizePty", "Update"};

static int state_neutral(const char *method) {
  for (size_t i = 0; i < sizeof STATE_NEUTRAL / sizeof STATE_NEUTRAL[0]; i++)
    if (strcmp(method, STATE_NEUTRAL[i]) == 0) return 1;
  return 0;
}

long relay_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void push(struct queue *q, struct frame *f) {
  f->next = NULL;
  if (q->tail) q->tail->next = f;
  else q->head = f;
  q->tail = f;
  q->bytes += f->len;
}

static struct frame *pop(struct queue *q) {
  struct frame *f = q->head;
  if (f == NULL) return NULL;
  q->head = f->next;
  if (q->head == NULL) q->tail = NULL;
  q->bytes -= f->len;
  f->next = NULL;
  return f;
}

static void free_frame(struct frame *f) {
  if (f->change) state_cache_change_end(f->scope);
  state_ask_free(&f->ask);
  state_ask_free(&f->changed);
  free(f->data);
  free(f);
}

/* A request in flight whose bytes are no longer worth keeping: only its stream and method stay. */
static void drop_bytes(struct queue *q, struct frame *f) {
  q->bytes -= f->len;
  free(f->data);
  f->data = NULL;
  f->len = 0;
}

static void clear(struct queue *q) {
  struct frame *f;
  while ((f = pop(q)) != NULL) free_frame(f);
}

struct relay *relay_new(int down) {
  struct relay *r = calloc(1, sizeof *r);
  if (r == NULL) return NULL;
  r->down = down;
  r->up = -1;
  r->down_side = (struct side){.relay = r, .is_up = 0, .kind = SIDE_RELAY};
  r->up_side = (struct side){.relay = r, .is_up = 1, .kind = SIDE_RELAY};
  return r;
}

void relay_free(struct relay *r) {
  if (r->down >= 0) close(r->down);
  if (r->up >= 0) close(r->up);
  clear(&r->to_up);
  clear(&r->to_down);
  clear(&r->in_flight);
  clear(&r->parked);
  free(r->from_down.data);
  free(r->from_up.data);
  free(r);
}

/* Queues a Response with status `code` for containerd on `stream_id`. */
static void answer_status(struct relay *r, uint32_t stream_id, uint32_t code, const char *message) {
  struct frame *f = calloc(1, sizeof *f);
  if (f == NULL) return;
  f->data = ttrpc_status_frame(stream_id, code, message, &f->len);
  if (f->data == NULL) {
    free(f);
    return;
  }
  f->stream_id = stream_id;
  f->type = TTRPC_RESPONSE;
  push(&r->to_down, f);
}

static void answer_unavailable(struct relay *r, uint32_t stream_id, const char *message) {
  answer_status(r, stream_id, RPC_UNAVAILABLE, message);
}

static void restarted(struct relay *r, const struct frame *request) {
  char message[METHOD_MAX + 128]; /* the line below, the method whole */
  snprintf(message, sizeof message,
           "skiff's serving process restarted while %s was in flight; it may or may not have taken effect: check "
           "the task's state",
           request->method[0] ? request->method : "a request");
  answer_unavailable(r, request->stream_id, message);
}

/* One whole frame read from a side: queued for the other, with what the in-flight rules need. */
static int take_frame(struct relay *r, int is_up, const unsigned char *bytes, const struct ttrpc_header *h) {
  struct frame *f = calloc(1, sizeof *f);
  if (f == NULL) return -1;
  f->len = TTRPC_HEADER + h->length;
  f->data = malloc(f->len);
  if (f->data == NULL) {
    free(f);
    return -1;
  }
  memcpy(f->data, bytes, f->len);
  f->stream_id = h->stream_id;
  f->type = h->type;
  if (!is_up) {
    if (h->type == TTRPC_REQUEST) {
      r->asked = 1;
      ttrpc_request_method(bytes + TTRPC_HEADER, h->length, f->method);
      if (strcmp(f->method, "State") == 0) {
        state_ask_read(&f->ask, bytes + TTRPC_HEADER, h->length, relay_now_ms());
        if (state_ask_waits(&f->ask)) {
          push(&r->parked, f);
          return 0;
        }
      } else if (!read_only(f->method) && !state_neutral(f->method)) {
        f->change = 1;
        f->scope = state_cache_change_begin(f->method, bytes + TTRPC_HEADER, h->length);
        f->change_epoch = state_cache_epoch();
        f->change_status = state_learned_request(f->method, bytes + TTRPC_HEADER, h->length, &f->changed.key,
                                                 &f->changed.key_len);
      }
    }
    push(&r->to_up, f);
    return 0;
  }
  if (h->type == TTRPC_RESPONSE) {
    r->losses = 0;
    /* Its request is answered: no longer in flight. */
    struct frame **at = &r->in_flight.head, *prev = NULL;
    while (*at && (*at)->stream_id != h->stream_id) {
      prev = *at;
      at = &(*at)->next;
    }
    struct frame *request = *at;
    if (request != NULL) {
      *at = request->next;
      if (r->in_flight.tail == request) r->in_flight.tail = prev;
      r->in_flight.bytes -= request->len;
      /* ShutdownSandbox is a sandbox's Shutdown (docs/sandbox-api.md): the last call containerd makes of it. */
      int goodbye = strcmp(request->method, "Shutdown") == 0           ? SHUTDOWN_TASK
                    : strcmp(request->method, "ShutdownSandbox") == 0 ? SHUTDOWN_SANDBOX
                                                                       : 0;
      if (goodbye && ttrpc_response_ok(bytes + TTRPC_HEADER, h->length)) r->shutdown_ok = goodbye;
      if (r->newest == request) r->newest = NULL;
      int answered = request->ask.answered;
      if (!answered) state_cache_keep(&request->ask, bytes + TTRPC_HEADER, h->length);
      if (request->change) {
        state_cache_change_answered(request->scope, &request->changed, request->change_status, request->change_epoch,
                                    bytes + TTRPC_HEADER, h->length);
        request->change = 0;
      }
      free_frame(request);
      if (answered) {
        /* The keeper answered it from its cache: containerd has its one answer. */
        free_frame(f);
        return 0;
      }
    }
  }
  push(&r->to_down, f);
  return 0;
}

static int grow(struct partial *p, size_t need) {
  if (p->cap >= need) return 0;
  size_t cap = p->cap ? p->cap : READ_CHUNK;
  while (cap < need) cap *= 2;
  unsigned char *data = realloc(p->data, cap);
  if (data == NULL) return -1;
  p->data = data;
  p->cap = cap;
  return 0;
}

enum relay_result relay_read(struct relay *r, int is_up) {
  enum relay_result gone = is_up ? RELAY_UP_GONE : RELAY_DOWN_GONE;
  int fd = is_up ? r->up : r->down;
  struct partial *p = is_up ? &r->from_up : &r->from_down;
  if (grow(p, p->len + READ_CHUNK) != 0) return gone;
  ssize_t n = read(fd, p->data + p->len, READ_CHUNK);
  if (n == 0) return gone;
  if (n < 0 && is_up && errno == ECONNRESET) r->up_reset = 1;
  if (n < 0) return errno == EAGAIN || errno == EINTR ? RELAY_OK : gone;
  p->len += (size_t)n;
  size_t off = 0;
  for (;;) {
    if (p->discard > 0) {
      size_t drop = p->len - off < p->discard ? p->len - off : p->discard;
      off += drop;
      p->discard -= drop;
      if (p->discard > 0) break;
      /* As ttrpc's server (channel.go, recv): the answer once the body has passed. Dropping the
       * connection instead would make containerd take the shim, and the task, for dead. */
      char message[96];
      snprintf(message, sizeof message, "message length %u exceed maximum message size of %u", p->discard_length,
               TTRPC_MAX_PAYLOAD);
      answer_status(r, p->discard_stream, RPC_RESOURCE_EXHAUSTED, message);
    }
    if (p->len - off < TTRPC_HEADER) break;
    struct ttrpc_header h;
    ttrpc_header_read(p->data + off, &h);
    if (h.length > TTRPC_MAX_PAYLOAD) {
      /* From the serving process: not its ttrpc, that upstream is ended. */
      if (is_up) return gone;
      /* From containerd: the body is read and dropped as it arrives, then its stream gets
       * RESOURCE_EXHAUSTED (above); the connection, and the task, go on. */
      off += TTRPC_HEADER;
      p->discard = h.length;
      p->discard_stream = h.stream_id;
      p->discard_length = h.length;
      continue;
    }
    if (p->len - off < TTRPC_HEADER + (size_t)h.length) break;
    if (take_frame(r, is_up, p->data + off, &h) != 0) return gone;
    off += TTRPC_HEADER + h.length;
  }
  memmove(p->data, p->data + off, p->len - off);
  p->len -= off;
  if (p->len == 0 && p->cap > PARTIAL_KEEP) {
    free(p->data);
    p->data = NULL;
    p->cap = 0;
  }
  return RELAY_OK;
}

enum relay_result relay_write(struct relay *r, int is_up) {
  int fd = is_up ? r->up : r->down;
  struct queue *q = is_up ? &r->to_up : &r->to_down;
  if (fd < 0 || (is_up && r->up_refused)) return RELAY_OK;
  while (q->head != NULL) {
    struct frame *f = q->head;
    /* write, not send: the same on a socket (SIGPIPE is ignored), and counted in /proc/<pid>/io. */
    ssize_t n = write(fd, f->data + f->written, f->len - f->written);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) return RELAY_OK;
      if (!is_up) return RELAY_DOWN_GONE;
      /* A serving process handing over (docs/upgrade.md) still answers what it has read; a
       * dead one's reading side fails too. Either way the read side ends this upstream, and
       * what it did not get whole goes again to the next one. */
      r->up_refused = 1;
      return RELAY_OK;
    }
    f->written += (size_t)n;
    if (f->written < f->len) return RELAY_OK;
    pop(q);
    if (is_up && f->type == TTRPC_REQUEST) {
      /* In flight now. A read-only request's bytes are kept: it may be sent again. So are the
       * newest request's, until another is written: sent again if the upstream ends with it unread. */
      push(&r->in_flight, f);
      if (r->newest != NULL && !read_only(r->newest->method)) drop_bytes(&r->in_flight, r->newest);
      r->newest = f;
    } else {
      free_frame(f);
    }
  }
  return RELAY_OK;
}

void relay_lose_upstream(struct relay *r) {
  /*
   * ECONNRESET: the serving process's side was released with bytes of this connection unread
   * (it died with them queued, or never accepted the connection: a dying process's listener
   * still takes connections until its last thread is gone). The unread bytes are the end of
   * what was written, so the newest request never reached it whole, and took no effect.
   */
  struct frame *unread = r->up_reset ? r->newest : NULL;
  r->up_reset = 0;
  r->newest = NULL;
  if (!r->up_handing_over) r->losses++;
  if (r->up >= 0) close(r->up);
  r->up = -1;
  r->up_refused = 0;
  r->up_handing_over = 0;
  r->from_up.len = 0;
  /* A frame the server got only part of was never acted on: it goes again whole. */
  if (r->to_up.head != NULL) r->to_up.head->written = 0;
  struct queue kept = {0};
  struct frame *f;
  while ((f = pop(&r->in_flight)) != NULL) {
    if (f->ask.answered) {
      free_frame(f);
    } else if (f->data != NULL && (read_only(f->method) || f == unread)) {
      f->written = 0;
      push(&kept, f);
    } else {
      restarted(r, f);
      free_frame(f);
    }
  }
  /* The kept requests go first: they were sent before anything still waiting. */
  if (kept.head != NULL) {
    kept.tail->next = r->to_up.head;
    if (r->to_up.tail == NULL) r->to_up.tail = kept.tail;
    r->to_up.head = kept.head;
    r->to_up.bytes += kept.bytes;
  }
}

/* Answers `f` from the cache once its hedge time has passed; the ms until it is due, 0 when done with, -1 when not a State. */
static long overdue(struct relay *r, struct frame *f, long now_ms) {
  if (f->ask.key == NULL || f->ask.answered || f->ask.tried) return -1;
  long left = f->ask.read_ms + state_cache_hedge_ms() - now_ms;
  if (left > 0) return left;
  f->ask.tried = 1;
  struct frame *answer = calloc(1, sizeof *answer);
  if (answer == NULL) return 0;
  answer->data = state_cache_answer(&f->ask, f->stream_id, &answer->len);
  if (answer->data == NULL) {
    free(answer);
    return 0;
  }
  answer->stream_id = f->stream_id;
  answer->type = TTRPC_RESPONSE;
  push(&r->to_down, answer);
  f->ask.answered = 1;
  return 0;
}

long relay_answer_overdue(struct relay *r, long now_ms) {
  long soonest = -1;
  for (struct frame *f = r->in_flight.head; f != NULL; f = f->next) {
    long left = overdue(r, f, now_ms);
    if (left > 0 && (soonest < 0 || left < soonest)) soonest = left;
  }
  /* Waiting ones answered are never sent (the head only once no byte of it was). */
  struct frame **at = &r->to_up.head, *prev = NULL;
  while (*at != NULL) {
    struct frame *f = *at;
    long left = f == r->to_up.head && f->written > 0 ? -1 : overdue(r, f, now_ms);
    if (left > 0 && (soonest < 0 || left < soonest)) soonest = left;
    if (!f->ask.answered) {
      prev = f;
      at = &f->next;
      continue;
    }
    *at = f->next;
    if (r->to_up.tail == f) r->to_up.tail = prev;
    r->to_up.bytes -= f->len;
    free_frame(f);
  }
  return soonest;
}

int relay_unpark(struct relay *r) {
  int moved = 0;
  struct queue still = {0};
  struct frame *f;
  while ((f = pop(&r->parked)) != NULL) {
    if (state_ask_waits(&f->ask)) {
      push(&still, f);
    } else {
      /* Read as of now: what the serving process answers holds the exit. */
      f->ask.epoch = state_cache_epoch();
      f->ask.read_ms = relay_now_ms();
      push(&r->to_up, f);
      moved++;
    }
  }
  r->parked = still;
  return moved;
}

int relay_needs_upstream(const struct relay *r) {
  return r->up < 0 && r->to_up.head != NULL;
}

void relay_refuse_waiting(struct relay *r, const char *message) {
  struct frame *f;
  /* A parked State waits for an ack that no serving process will send now. */
  while ((f = pop(&r->parked)) != NULL) push(&r->to_up, f);
  while ((f = pop(&r->to_up)) != NULL) {
    if (f->type == TTRPC_REQUEST) answer_unavailable(r, f->stream_id, message);
    free_frame(f);
  }
}
