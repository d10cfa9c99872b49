/*
 * The keeper's State answers (docs/keeper-protocol.md, "State from the keeper"). What keeps
 * them true: an answer is kept only when no request that may change its process was in flight
 * at its answer, and nothing changed in the pod from the State's arrival to its answer. Each
 * such request drops the answers of what it may touch (its process, its task, or the pod: its
 * scope), as it arrives and as it is answered; each exit the keeper reaps drops the answers
 * that name its pid. A process that still runs is answered for only while the keeper holds it
 * alive; a stopped one stays as it was until a change of its scope drops it. A Create's or
 * Start's own answer adds the one State answer it implies (state-learned.h) when it was the
 * only change from its arrival to its answer.
 */
#include "state-cache.h"

#include <stdlib.h>
#include <string.h>

#include "state-learned.h"
#include "ttrpc-wire.h"

/* A pod has a few processes; a State response is a few hundred bytes. */
#define ENTRIES_MAX 64
#define PAYLOAD_MAX (64u << 10)

struct entry {
  struct entry *next;
  char *key;
  size_t key_len;
  unsigned char *payload;
  size_t len;
  uint64_t pid, status;
};

/* What a change may touch: one exec ("<id>\0<exec id>\0"), a task with its execs ("<id>\0\0"), or the pod. */
enum scope { SCOPE_PROCESS, SCOPE_TASK, SCOPE_POD };

struct state_change {
  struct state_change *next;
  enum scope scope;
  char *key; /* NULL for the pod */
  size_t key_len;
};

static struct cache_state {
  int (*runs)(int pid);
  int (*exit_unacked)(const char *id, const char *exec_id);
  long hedge_ms;
  unsigned long epoch;
  int changes;                 /* requests that may change a process, in flight */
  struct state_change *active; /* their scopes */
  int unscoped;                /* changes whose scope could not be kept (no memory): the pod's */
  struct entry *entries;
  int size;
} cache = {.hedge_ms = STATE_HEDGE_MS_DEFAULT};

void state_cache_configure(int (*runs)(int pid), int (*exit_unacked)(const char *id, const char *exec_id),
                           long hedge_ms) {
  cache.runs = runs;
  cache.exit_unacked = exit_unacked;
  cache.hedge_ms = hedge_ms;
}

long state_cache_hedge_ms(void) {
  return cache.hedge_ms;
}

unsigned long state_cache_epoch(void) {
  return cache.epoch;
}

int state_cache_size(void) {
  return cache.size;
}

/* Whether a change of `ch`'s scope may touch the process `key`; NULL is the pod's. */
static int touches(const struct state_change *ch, const char *key, size_t key_len) {
  if (ch == NULL || ch->scope == SCOPE_POD) return 1;
  if (ch->scope == SCOPE_PROCESS) return ch->key_len == key_len && memcmp(ch->key, key, key_len) == 0;
  return strcmp(ch->key, key) == 0;
}

/* Drops the answers a change of `ch`'s scope may touch (NULL: the pod's), or with `pid` those naming it. */
static void drop(const struct state_change *ch, uint64_t pid) {
  for (struct entry **at = &cache.entries; *at != NULL;) {
    struct entry *e = *at;
    if (pid ? e->pid != pid : !touches(ch, e->key, e->key_len)) {
      at = &e->next;
      continue;
    }
    *at = e->next;
    free(e->key);
    free(e->payload);
    free(e);
    cache.size--;
  }
  cache.epoch++;
}

/* Whether a change in flight may touch the process `key`. */
static int in_flight_for(const char *key, size_t key_len) {
  if (cache.unscoped > 0) return 1;
  for (const struct state_change *ch = cache.active; ch != NULL; ch = ch->next)
    if (touches(ch, key, key_len)) return 1;
  return 0;
}

int state_ask_read(struct state_ask *a, const unsigned char *request, size_t len, long now_ms) {
  const unsigned char *body = NULL;
  size_t body_len = 0, key_len = 0;
  uint64_t v;
  /* Request{3: payload}, StateRequest{1: id, 2: exec_id}: both strings, or it is no State this can key. */
  if (ttrpc_last_field(request, len, 3, &body, &body_len, &v) != 1 || body == NULL) return 0;
  char *key = state_process_key(body, body_len, &key_len);
  if (key == NULL) return 0;
  *a = (struct state_ask){.key = key, .key_len = key_len, .epoch = cache.epoch, .read_ms = now_ms};
  return 1;
}

int state_ask_waits(const struct state_ask *a) {
  return a->key != NULL && cache.exit_unacked != NULL && cache.exit_unacked(a->key, a->key + strlen(a->key) + 1);
}

void state_ask_free(struct state_ask *a) {
  free(a->key);
  a->key = NULL;
}

/* Requests whose body is {1: id, 2: exec_id}, and those whose body's 1 is the task's id (Checkpoint's 2 is a path). */
static const char *const BY_PROCESS[] = {"Exec", "Start", "Kill", "Delete"};
static const char *const BY_TASK[] = {"Create", "Pause", "Resume", "Checkpoint"};

static int one_of(const char *method, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(method, list[i]) == 0) return 1;
  return 0;
}

/* The scope of `method`'s request (its ttrpc payload) into `ch`: the pod's when it names no task this can read. */
static void scope_of(struct state_change *ch, const char *method, const unsigned char *payload, size_t len) {
  ch->scope = SCOPE_POD;
  const unsigned char *body = NULL;
  size_t body_len = 0;
  uint64_t v;
  int by_process = one_of(method, BY_PROCESS, sizeof BY_PROCESS / sizeof BY_PROCESS[0]);
  if (!by_process && !one_of(method, BY_TASK, sizeof BY_TASK / sizeof BY_TASK[0])) return;
  if (ttrpc_last_field(payload, len, 3, &body, &body_len, &v) != 1 || body == NULL) return;
  ch->key = by_process ? state_process_key(body, body_len, &ch->key_len) : state_task_key(body, body_len, &ch->key_len);
  if (ch->key == NULL) return;
  /* An init's Start, Kill or Delete is its task's: a Delete ends its execs, a Kill may signal them all. */
  ch->scope = ch->key[strlen(ch->key) + 1] != '\0' ? SCOPE_PROCESS : SCOPE_TASK;
}

struct state_change *state_cache_change_begin(const char *method, const unsigned char *payload, size_t len) {
  cache.changes++;
  struct state_change *ch = calloc(1, sizeof *ch);
  if (ch == NULL) {
    cache.unscoped++;
    drop(NULL, 0);
    return NULL;
  }
  scope_of(ch, method, payload, len);
  ch->next = cache.active;
  cache.active = ch;
  drop(ch, 0);
  return ch;
}

void state_cache_change_end(struct state_change *ch) {
  if (cache.changes > 0) cache.changes--;
  if (ch == NULL) {
    if (cache.unscoped > 0) cache.unscoped--;
    drop(NULL, 0);
    return;
  }
  for (struct state_change **at = &cache.active; *at != NULL; at = &(*at)->next)
    if (*at == ch) {
      *at = ch->next;
      break;
    }
  drop(ch, 0);
  free(ch->key);
  free(ch);
}

void state_cache_forget_pid(uint64_t pid) {
  if (pid != 0) drop(NULL, pid);
}

static struct entry **find(const char *key, size_t key_len) {
  struct entry **at = &cache.entries;
  while (*at != NULL && ((*at)->key_len != key_len || memcmp((*at)->key, key, key_len) != 0)) at = &(*at)->next;
  return at;
}

/* Holds `payload` (taken) as the answer for `key`. */
static void put(const char *key, size_t key_len, unsigned char *payload, size_t len, uint64_t pid, uint64_t status) {
  struct entry **at = find(key, key_len);
  struct entry *e = *at;
  if (e == NULL) {
    if (cache.size >= ENTRIES_MAX || (e = calloc(1, sizeof *e)) == NULL) {
      free(payload);
      return;
    }
    e->key = malloc(key_len);
    if (e->key == NULL) {
      free(e);
      free(payload);
      return;
    }
    memcpy(e->key, key, key_len);
    e->key_len = key_len;
    *at = e;
    cache.size++;
  }
  free(e->payload);
  e->payload = payload;
  e->len = len;
  e->pid = pid;
  e->status = status;
}

void state_cache_keep(const struct state_ask *a, const unsigned char *response, size_t len) {
  if (a->key == NULL || a->epoch != cache.epoch || in_flight_for(a->key, a->key_len) || !ttrpc_response_ok(response, len))
    return;
  const unsigned char *body = NULL, *unused = NULL;
  size_t body_len = 0, unused_len = 0;
  uint64_t pid = 0, status = 0, v;
  int found = ttrpc_last_field(response, len, 2, &body, &body_len, &v);
  if (found < 0 || (found == 1 && body == NULL)) return;
  if (found == 0) body_len = 0; /* an empty StateResponse: UNKNOWN, never kept (below) */
  if (body_len > PAYLOAD_MAX) return;
  /* StateResponse{3: pid, 4: status}: varints, or it is no answer to keep. */
  int has_pid = body_len ? ttrpc_last_field(body, body_len, 3, &unused, &unused_len, &pid) : 0;
  if (has_pid < 0 || (has_pid == 1 && unused != NULL)) return;
  int has_status = body_len ? ttrpc_last_field(body, body_len, 4, &unused, &unused_len, &status) : 0;
  if (has_status != 1 || unused != NULL) return;
  if (status != STATUS_CREATED && status != STATUS_RUNNING && status != STATUS_STOPPED && status != STATUS_PAUSED)
    return;
  unsigned char *copy = malloc(body_len ? body_len : 1);
  if (copy == NULL) return;
  if (body_len) memcpy(copy, body, body_len);
  put(a->key, a->key_len, copy, body_len, pid, status);
}

/* The pid a Create's or Start's Response carries (Response{2: {1: pid}}), 0 in an Exec's Empty; -1 when it is not protobuf. */
static int answered_pid(const unsigned char *response, size_t len, uint64_t *pid) {
  const unsigned char *body = NULL, *unused = NULL;
  size_t body_len = 0, unused_len = 0;
  uint64_t v;
  *pid = 0;
  int has_body = ttrpc_last_field(response, len, 2, &body, &body_len, &v);
  if (has_body < 0 || (has_body == 1 && body == NULL)) return -1;
  if (has_body == 0 || body_len == 0) return 0;
  int has_pid = ttrpc_last_field(body, body_len, 1, &unused, &unused_len, pid);
  return has_pid < 0 || (has_pid == 1 && unused != NULL) ? -1 : 0;
}

void state_cache_change_answered(struct state_change *ch, const struct state_ask *a, int status, unsigned long began,
                                 const unsigned char *response, size_t len) {
  /* Alone: no other change began or ended, and no exit was reaped, since this one began. */
  int alone = began == cache.epoch && cache.changes == 1;
  state_cache_change_end(ch);
  if (!alone || a->key == NULL || status == 0 || !ttrpc_response_ok(response, len)) return;
  uint64_t pid = 0;
  if (answered_pid(response, len, &pid) != 0) return;
  /* Only a created exec has no pid; an init's Create and every Start answer one. */
  int exec = a->key[strlen(a->key) + 1] != '\0';
  if (pid == 0 && !(exec && status == STATUS_CREATED)) return;
  size_t answer_len = 0;
  unsigned char *answer = state_learned_answer(a->key, a->key_len, pid, (uint64_t)status, &answer_len);
  if (answer != NULL) put(a->key, a->key_len, answer, answer_len, pid, (uint64_t)status);
}

unsigned char *state_cache_answer(const struct state_ask *a, uint32_t stream_id, size_t *len) {
  if (a->key == NULL || in_flight_for(a->key, a->key_len)) return NULL;
  struct entry *e = *find(a->key, a->key_len);
  if (e == NULL || e->payload == NULL) return NULL;
  /* A process that runs is answered for only while the keeper holds it alive: its exit is the keeper's to see.
   * A stopped one, and a created exec (no pid: nothing of it runs), change only by a request (Start, Delete). */
  int unstarted = e->status == STATUS_CREATED && e->pid == 0;
  if (e->status != STATUS_STOPPED && !unstarted &&
      (cache.runs == NULL || e->pid == 0 || e->pid > 0x7fffffff || !cache.runs((int)e->pid)))
    return NULL;
  return ttrpc_payload_frame(stream_id, e->payload, e->len, len);
}
