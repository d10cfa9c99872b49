/*
 * native/keeper/state-learned.c with state-cache.c: the State answer a Create's or Start's own
 * answer leaves kept (docs/keeper-protocol.md, "State from the keeper"), its bytes laid out as
 * the serving process lays out its own StateResponse, and when it is not kept: another change
 * meanwhile, an exit reaped, a failed answer, a process whose Create or Exec was not seen.
 */
#include <stdlib.h>

#include "check.h"
#include "state-cache.h"
#include "state-learned.h"
#include "ttrpc-wire.h"

static int runs(int pid) {
  return pid == 42 || pid == 43;
}

/* tag, length, bytes: one length-delimited field appended at *n (short ones only). */
static void field(unsigned char *out, size_t *n, unsigned char tag, const void *bytes, size_t len) {
  out[(*n)++] = tag;
  out[(*n)++] = (unsigned char)len;
  memcpy(out + *n, bytes, len);
  *n += len;
}

/* A ttrpc Request for `method` around `body`. */
static size_t request(unsigned char *out, const char *method, const unsigned char *body, size_t body_len) {
  size_t n = 0;
  field(out, &n, 0x0a, "containerd.task.v2.Task", 23);
  field(out, &n, 0x12, method, strlen(method));
  field(out, &n, 0x1a, body, body_len);
  return n;
}

/* CreateTaskRequest{1 "t1", 2 "/b", 4 true, 5 "/i", 6 "/o", 7 "/e"}. */
static size_t create_request(unsigned char *out) {
  unsigned char body[64];
  size_t b = 0;
  field(body, &b, 0x0a, "t1", 2);
  field(body, &b, 0x12, "/b", 2);
  body[b++] = 0x20;
  body[b++] = 1;
  field(body, &b, 0x2a, "/i", 2);
  field(body, &b, 0x32, "/o", 2);
  field(body, &b, 0x3a, "/e", 2);
  return request(out, "Create", body, b);
}

/* A request whose body is {1 id, 2 exec id}: Start, Delete. */
static size_t process_request(unsigned char *out, const char *method, const char *exec) {
  unsigned char body[32];
  size_t b = 0;
  field(body, &b, 0x0a, "t1", 2);
  if (exec) field(body, &b, 0x12, exec, strlen(exec));
  return request(out, method, body, b);
}

/* ExecProcessRequest{1 "t1", 2 exec, 5 "/xo"}. */
static size_t exec_request(unsigned char *out, const char *exec) {
  unsigned char body[32];
  size_t b = 0;
  field(body, &b, 0x0a, "t1", 2);
  field(body, &b, 0x12, exec, strlen(exec));
  field(body, &b, 0x2a, "/xo", 3);
  return request(out, "Exec", body, b);
}

/* Response{2: {1: pid}}, or a failed one. */
static size_t pid_response(unsigned char *out, unsigned pid, unsigned code) {
  size_t n = 0;
  if (code) {
    unsigned char status[2] = {0x08, (unsigned char)code};
    field(out, &n, 0x0a, status, 2);
  }
  unsigned char body[2] = {0x08, (unsigned char)pid};
  field(out, &n, 0x12, body, 2);
  return n;
}

/* A change read, then answered with `pid` (or failed with `code`); `between` runs meanwhile. */
static void change(const char *method, unsigned char *req, size_t req_len, unsigned pid, unsigned code,
                   void (*between)(void)) {
  struct state_change *ch = state_cache_change_begin(method, req, req_len);
  unsigned long began = state_cache_epoch();
  struct state_ask a = {0};
  int status = state_learned_request(method, req, req_len, &a.key, &a.key_len);
  if (between) between();
  unsigned char response[16];
  size_t len = pid_response(response, pid, code);
  state_cache_change_answered(ch, &a, status, began, response, len);
  state_ask_free(&a);
}

/* An Exec read and answered as the serving process answers one: Response{2: Empty}. */
static void exec_answered(unsigned char *req, size_t req_len) {
  struct state_change *ch = state_cache_change_begin("Exec", req, req_len);
  unsigned long began = state_cache_epoch();
  struct state_ask a = {0};
  int status = state_learned_request("Exec", req, req_len, &a.key, &a.key_len);
  const unsigned char empty[] = {0x12, 0x00};
  state_cache_change_answered(ch, &a, status, began, empty, sizeof empty);
  state_ask_free(&a);
}

/* The cache's answer to a State of t1 (exec id `exec`): its StateResponse bytes compared with `want`. */
static int answers_with(const char *exec, const unsigned char *want, size_t want_len) {
  unsigned char req[64];
  size_t len = process_request(req, "State", exec);
  struct state_ask a = {0};
  CHECK(state_ask_read(&a, req, len, 0) == 1);
  size_t frame_len = 0;
  unsigned char *frame = state_cache_answer(&a, 5, &frame_len);
  state_ask_free(&a);
  if (frame == NULL) return 0;
  int same = want != NULL && frame_len == TTRPC_HEADER + 2 + want_len && frame[10] == 0x12 && frame[11] == want_len &&
             memcmp(frame + 12, want, want_len) == 0;
  free(frame);
  return same || want == NULL;
}

static void another_change(void) {
  state_cache_change_end(state_cache_change_begin("Shutdown", NULL, 0));
}

static void an_exit(void) {
  state_cache_forget_pid(42);
}

static void create_then_start(void) {
  unsigned char req[128];
  size_t len = create_request(req);
  change("Create", req, len, 42, 0, NULL);
  CHECK(state_learned_size() == 1);
  /* StateResponse{1 "t1", 2 "/b", 3 42, 4 CREATED, 5 "/i", 6 "/o", 7 "/e", 8 true}. */
  const unsigned char created[] = {0x0a, 2, 't', '1', 0x12, 2, '/', 'b', 0x18, 42, 0x20, 1,   0x2a, 2,
                                   '/',  'i', 0x32, 2, '/', 'o', 0x3a, 2,   '/', 'e', 0x40, 1};
  CHECK(answers_with(NULL, created, sizeof created));
  len = process_request(req, "Start", NULL);
  change("Start", req, len, 42, 0, NULL);
  unsigned char running[sizeof created];
  memcpy(running, created, sizeof created);
  running[11] = STATUS_RUNNING;
  CHECK(answers_with(NULL, running, sizeof running));
}

static void not_alone(void) {
  unsigned char req[128];
  size_t len = process_request(req, "Start", NULL);
  change("Start", req, len, 42, 0, another_change);
  CHECK(!answers_with(NULL, NULL, 0));
  change("Start", req, len, 42, 0, an_exit);
  CHECK(!answers_with(NULL, NULL, 0));
  change("Start", req, len, 42, 5, NULL); /* NOT_FOUND */
  CHECK(!answers_with(NULL, NULL, 0));
  change("Start", req, len, 44, 0, NULL); /* a pid the keeper does not hold */
  CHECK(!answers_with(NULL, NULL, 0));
  change("Start", req, len, 0, 0, NULL); /* a Start answered without a pid */
  CHECK(!answers_with(NULL, NULL, 0));
  /* Another change still in flight at the answer. */
  struct state_change *other = state_cache_change_begin("Shutdown", NULL, 0);
  change("Start", req, len, 42, 0, NULL);
  CHECK(!answers_with(NULL, NULL, 0));
  state_cache_change_end(other);
  change("Start", req, len, 42, 0, NULL);
  CHECK(answers_with(NULL, NULL, 0));
}

static void execs(void) {
  unsigned char req[128];
  size_t len = exec_request(req, "x1");
  exec_answered(req, len);
  /* Created, not started: no pid. StateResponse{1 "t1", 2 "/b", 4 CREATED, 6 "/xo", 11 "x1"}. */
  const unsigned char created[] = {0x0a, 2, 't', '1', 0x12, 2, '/', 'b', 0x20, 1, 0x32, 3, '/', 'x', 'o', 0x5a, 2, 'x', '1'};
  CHECK(answers_with("x1", created, sizeof created));
  len = process_request(req, "Start", "x1");
  change("Start", req, len, 43, 0, NULL);
  /* StateResponse{1 "t1", 2 "/b" (its task's), 3 43, 4 RUNNING, 6 "/xo", 11 "x1"}. */
  const unsigned char running[] = {0x0a, 2, 't',  '1', 0x12, 2, '/', 'b', 0x18, 43, 0x20,
                                   2,    0x32, 3, '/', 'x', 'o', 0x5a, 2, 'x', '1'};
  CHECK(answers_with("x1", running, sizeof running));
  /* Its Delete forgets it; a Start of an exec never seen leaves nothing. */
  len = process_request(req, "Delete", "x1");
  CHECK(state_learned_size() == 2);
  change("Delete", req, len, 0, 0, NULL);
  CHECK(state_learned_size() == 1);
  len = process_request(req, "Start", "x1");
  change("Start", req, len, 43, 0, NULL);
  CHECK(!answers_with("x1", NULL, 0));
  /* The task's Delete forgets it too: an exec of it has no bundle to be answered with. */
  len = process_request(req, "Delete", NULL);
  change("Delete", req, len, 0, 0, NULL);
  len = exec_request(req, "x2");
  exec_answered(req, len);
  len = process_request(req, "Start", "x2");
  change("Start", req, len, 43, 0, NULL);
  CHECK(!answers_with("x2", NULL, 0));
}

static void not_protobuf(void) {
  char *key = NULL;
  size_t key_len = 0;
  unsigned char cut[] = {0x1a, 0x09, 0x0a, 0x01};
  CHECK(state_learned_request("Create", cut, sizeof cut, &key, &key_len) == 0 && key == NULL);
  unsigned char varint_bundle[] = {0x1a, 0x06, 0x0a, 0x02, 't', '9', 0x10, 0x01};
  CHECK(state_learned_request("Create", varint_bundle, sizeof varint_bundle, &key, &key_len) == 0 && key == NULL);
  unsigned char no_id[] = {0x1a, 0x00};
  CHECK(state_learned_request("Start", no_id, sizeof no_id, &key, &key_len) == 0 && key == NULL);
  CHECK(state_learned_request("Kill", no_id, sizeof no_id, &key, &key_len) == 0 && key == NULL);
  CHECK(state_learned_answer("t9\0", 4, 1, STATUS_RUNNING, &key_len) == NULL);
}

int main(void) {
  state_cache_configure(runs, NULL, 100);
  create_then_start();
  not_alone();
  execs();
  not_protobuf();
  return CHECK_RESULT;
}
