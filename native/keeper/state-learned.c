/*
 * The processes' Create and Exec requests as a State answer needs them (state-learned.h).
 * The answer is laid out as the serving process's: StateResponse's fields in number order,
 * proto3's defaults left out (exit_status 0, no exited_at, terminal false, empty strings), as
 * the keeper-state test compares byte for byte with the serving process's own.
 */
#include "state-learned.h"

#include <stdlib.h>
#include <string.h>

#include "proto-wire.h"
#include "ttrpc-wire.h"

/* A pod has a few processes; the oldest is let go past this. Paths are at most PATH_MAX. */
#define RECORDS_MAX 64
#define TEXT_MAX 4096
#define KEY_MAX 1024

enum text { BUNDLE, STDIN, STDOUT, STDERR, TEXTS };

struct record {
  struct record *next;
  char *key;
  size_t key_len;
  struct bytes text[TEXTS]; /* malloc'd copies */
  int terminal;
};

static struct {
  struct record *records; /* newest first */
  int size;
} learned;

int state_learned_size(void) {
  return learned.size;
}

static void free_record(struct record *r) {
  for (int i = 0; i < TEXTS; i++) free((void *)r->text[i].data);
  free(r->key);
  free(r);
}

static struct record **find(const char *key, size_t key_len) {
  struct record **at = &learned.records;
  while (*at != NULL && ((*at)->key_len != key_len || memcmp((*at)->key, key, key_len) != 0)) at = &(*at)->next;
  return at;
}

static void forget(const char *key, size_t key_len) {
  struct record **at = find(key, key_len);
  if (*at == NULL) return;
  struct record *r = *at;
  *at = r->next;
  free_record(r);
  learned.size--;
}

/* A string field of `body`: 1 with its bytes (none when absent: proto3's ""), -1 when it is no string this keeps. */
static int text_at(const unsigned char *body, size_t len, uint32_t number, struct bytes *out) {
  uint64_t v;
  *out = (struct bytes){(const unsigned char *)"", 0};
  int found = ttrpc_last_field(body, len, number, &out->data, &out->len, &v);
  if (found == 0) {
    *out = (struct bytes){(const unsigned char *)"", 0};
    return 1;
  }
  if (found < 0 || out->data == NULL || out->len > TEXT_MAX) return -1;
  return 1;
}

char *state_key(struct bytes id, struct bytes exec, size_t *key_len) {
  if (id.len == 0 || id.len + exec.len + 2 > KEY_MAX || memchr(id.data, 0, id.len) ||
      (exec.len && memchr(exec.data, 0, exec.len)))
    return NULL;
  char *key = malloc(id.len + exec.len + 2);
  if (key == NULL) return NULL;
  memcpy(key, id.data, id.len);
  key[id.len] = '\0';
  if (exec.len) memcpy(key + id.len + 1, exec.data, exec.len);
  key[id.len + 1 + exec.len] = '\0';
  *key_len = id.len + exec.len + 2;
  return key;
}

/* Remembers the process `key` (taken) with its texts and terminal flag, replacing an older record of it. */
static void remember(char *key, size_t key_len, const struct bytes text[TEXTS], int terminal) {
  forget(key, key_len);
  struct record *r = calloc(1, sizeof *r);
  if (r == NULL) {
    free(key);
    return;
  }
  r->key = key;
  r->key_len = key_len;
  r->terminal = terminal;
  for (int i = 0; i < TEXTS; i++) {
    unsigned char *copy = malloc(text[i].len ? text[i].len : 1);
    if (copy == NULL) {
      free_record(r);
      return;
    }
    if (text[i].len) memcpy(copy, text[i].data, text[i].len);
    r->text[i] = (struct bytes){copy, text[i].len};
  }
  if (learned.size >= RECORDS_MAX) {
    struct record **last = &learned.records;
    while ((*last)->next != NULL) last = &(*last)->next;
    free_record(*last);
    *last = NULL;
    learned.size--;
  }
  r->next = learned.records;
  learned.records = r;
  learned.size++;
}

char *state_process_key(const unsigned char *body, size_t len, size_t *key_len) {
  struct bytes id, exec;
  if (text_at(body, len, 1, &id) != 1 || text_at(body, len, 2, &exec) != 1) return NULL;
  return state_key(id, exec, key_len);
}

char *state_task_key(const unsigned char *body, size_t len, size_t *key_len) {
  struct bytes id, none = {(const unsigned char *)"", 0};
  return text_at(body, len, 1, &id) == 1 ? state_key(id, none, key_len) : NULL;
}

int state_learned_request(const char *method, const unsigned char *payload, size_t len, char **key, size_t *key_len) {
  *key = NULL;
  const unsigned char *body = NULL;
  size_t body_len = 0;
  uint64_t v;
  /* Request{3: payload}; a request without one is all defaults, and names no process. */
  if (ttrpc_last_field(payload, len, 3, &body, &body_len, &v) != 1 || body == NULL) return 0;
  int create = strcmp(method, "Create") == 0, exec = strcmp(method, "Exec") == 0;
  int start = strcmp(method, "Start") == 0, delete = strcmp(method, "Delete") == 0;
  if (!create && !exec && !start && !delete) return 0;
  /* Every one has the id as field 1; Exec, Start and Delete the exec id as field 2 (CreateTaskRequest's 2 is the bundle). */
  size_t klen = 0;
  char *k = create ? state_task_key(body, body_len, &klen) : state_process_key(body, body_len, &klen);
  if (k == NULL) return 0;
  if (delete) {
    forget(k, klen);
    free(k);
    return 0;
  }
  if (start) {
    *key = k;
    *key_len = klen;
    return STATUS_RUNNING;
  }
  /* CreateTaskRequest{2 bundle, 4 terminal, 5 stdin, 6 stdout, 7 stderr}; ExecProcessRequest{3 terminal, 4 stdin, 5 stdout, 6 stderr}. */
  struct bytes text[TEXTS] = {{(const unsigned char *)"", 0}};
  uint32_t first = create ? 5 : 4, terminal_field = create ? 4 : 3;
  int ok = (!create || text_at(body, body_len, 2, &text[BUNDLE]) == 1) &&
           text_at(body, body_len, first, &text[STDIN]) == 1 &&
           text_at(body, body_len, first + 1, &text[STDOUT]) == 1 &&
           text_at(body, body_len, first + 2, &text[STDERR]) == 1;
  const unsigned char *unused = NULL;
  size_t unused_len = 0;
  uint64_t terminal = 0;
  int has_terminal = ttrpc_last_field(body, body_len, terminal_field, &unused, &unused_len, &terminal);
  if (!ok || has_terminal < 0 || (has_terminal == 1 && unused != NULL)) {
    /* Not what a State answer can be made from: an older record of the process must not stand for it. */
    forget(k, klen);
    free(k);
    return 0;
  }
  if (!create) text[BUNDLE] = (struct bytes){(const unsigned char *)"", 0}; /* the task's, at answer time */
  char *copy = malloc(klen);
  if (copy != NULL) memcpy(copy, k, klen);
  remember(k, klen, text, terminal != 0);
  if (copy == NULL) return 0;
  *key = copy;
  *key_len = klen;
  /* Created: a task's init with its pid (the answer's), an exec with none until its Start. */
  return STATUS_CREATED;
}

static unsigned char *put_text(unsigned char *p, unsigned field, struct bytes b) {
  return b.len ? proto_put_bytes(p, field, b.data, b.len) : p;
}

static size_t text_size(unsigned field, struct bytes b) {
  return b.len ? proto_varint_len((uint64_t)field << 3 | PROTO_LEN) + proto_varint_len(b.len) + b.len : 0;
}

unsigned char *state_learned_answer(const char *key, size_t key_len, uint64_t pid, uint64_t status, size_t *len) {
  struct record *r = *find(key, key_len);
  if (r == NULL) return NULL;
  size_t id_len = strlen(key);
  const char *exec = key + id_len + 1;
  struct bytes id = {(const unsigned char *)key, id_len}, exec_id = {(const unsigned char *)exec, strlen(exec)};
  struct bytes bundle = r->text[BUNDLE];
  if (exec_id.len) {
    /* An exec's bundle is its task's. */
    char task_key[KEY_MAX];
    memcpy(task_key, key, id_len + 1);
    task_key[id_len + 1] = '\0';
    struct record *task = *find(task_key, id_len + 2);
    if (task == NULL) return NULL;
    bundle = task->text[BUNDLE];
  }
  /* StateResponse{1 id, 2 bundle, 3 pid, 4 status, 5 stdin, 6 stdout, 7 stderr, 8 terminal, 11 exec_id}. */
  size_t size = text_size(1, id) + text_size(2, bundle) + text_size(5, r->text[STDIN]) +
                text_size(6, r->text[STDOUT]) + text_size(7, r->text[STDERR]) + text_size(11, exec_id) +
                (pid ? 1 + proto_varint_len(pid) : 0) + (status ? 1 + proto_varint_len(status) : 0) +
                (r->terminal ? 2 : 0);
  unsigned char *out = malloc(size ? size : 1), *p = out;
  if (out == NULL) return NULL;
  p = put_text(p, 1, id);
  p = put_text(p, 2, bundle);
  if (pid) {
    *p++ = 3 << 3 | PROTO_VARINT;
    p = proto_put_varint(p, pid);
  }
  if (status) {
    *p++ = 4 << 3 | PROTO_VARINT;
    p = proto_put_varint(p, status);
  }
  p = put_text(p, 5, r->text[STDIN]);
  p = put_text(p, 6, r->text[STDOUT]);
  p = put_text(p, 7, r->text[STDERR]);
  if (r->terminal) {
    *p++ = 8 << 3 | PROTO_VARINT;
    *p++ = 1;
  }
  p = put_text(p, 11, exec_id);
  *len = (size_t)(p - out);
  return out;
}
