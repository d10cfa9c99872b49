/*
 * native/keeper/state-cache.c: which State answers the keeper keeps and gives
 * (docs/keeper-protocol.md, "State from the keeper"). Requests and responses are built here
 * as protobuf lays them out: Request{1 service, 2 method, 3 payload}, StateRequest{1 id,
 * 2 exec_id}, Response{1 status, 2 payload}, StateResponse{3 pid, 4 status}.
 */
#include <stdlib.h>

#include "check.h"
#include "state-cache.h"
#include "ttrpc-wire.h"

static int running_pid = 42;
static int runs(int pid) {
  return running_pid == 0 || pid == running_pid;
}

/* tag, length, bytes: one length-delimited field appended at *n. */
static void field(unsigned char *out, size_t *n, unsigned char tag, const void *bytes, size_t len) {
  out[(*n)++] = tag;
  out[(*n)++] = (unsigned char)len;
  memcpy(out + *n, bytes, len);
  *n += len;
}

static size_t state_request(unsigned char *out, const char *id, const char *exec) {
  unsigned char body[64];
  size_t b = 0, n = 0;
  field(body, &b, 0x0a, id, strlen(id));
  if (exec) field(body, &b, 0x12, exec, strlen(exec));
  field(out, &n, 0x0a, "containerd.task.v2.Task", 23);
  field(out, &n, 0x12, "State", 5);
  field(out, &n, 0x1a, body, b);
  return n;
}

/* Response{2: StateResponse{1: id, 3: pid, 4: status}}, or with `code` a failed one. */
static size_t state_response(unsigned char *out, unsigned pid, unsigned status, unsigned code, unsigned char *body,
                             size_t *body_len) {
  size_t b = 0, n = 0;
  field(body, &b, 0x0a, "t1", 2);
  body[b++] = 0x18;
  body[b++] = (unsigned char)pid;
  body[b++] = 0x20;
  body[b++] = (unsigned char)status;
  *body_len = b;
  if (code) {
    unsigned char status_msg[2] = {0x08, (unsigned char)code};
    field(out, &n, 0x0a, status_msg, 2);
  }
  field(out, &n, 0x12, body, b);
  return n;
}

static struct state_ask ask_for(const char *id, const char *exec) {
  unsigned char request[128];
  size_t len = state_request(request, id, exec);
  struct state_ask a = {0};
  CHECK(state_ask_read(&a, request, len, 1000) == 1);
  return a;
}

/* Keeps a response to a fresh ask for "t1"; returns the StateResponse bytes kept. */
static size_t keep(unsigned pid, unsigned status, unsigned code, unsigned char *body) {
  struct state_ask a = ask_for("t1", NULL);
  unsigned char response[128];
  size_t body_len;
  size_t len = state_response(response, pid, status, code, body, &body_len);
  unsigned char *copy = malloc(len);
  memcpy(copy, response, len);
  state_cache_keep(&a, copy, len);
  free(copy);
  state_ask_free(&a);
  return body_len;
}

/* Whether the cache answers "t1" with exactly Response{2: body} on stream 7. */
static int answers_with(const unsigned char *body, size_t body_len) {
  struct state_ask a = ask_for("t1", NULL);
  size_t len = 0;
  unsigned char *frame = state_cache_answer(&a, 7, &len);
  state_ask_free(&a);
  if (frame == NULL) return 0;
  struct ttrpc_header h;
  ttrpc_header_read(frame, &h);
  int same = h.stream_id == 7 && h.type == TTRPC_RESPONSE && h.length == len - TTRPC_HEADER && frame[10] == 0x12 &&
             frame[11] == body_len && memcmp(frame + 12, body, body_len) == 0;
  free(frame);
  return same;
}

static int answers(void) {
  struct state_ask a = ask_for("t1", NULL);
  size_t len = 0;
  unsigned char *frame = state_cache_answer(&a, 7, &len);
  state_ask_free(&a);
  free(frame);
  return frame != NULL;
}

static void asks(void) {
  struct state_ask a = ask_for("t1", "e1");
  CHECK(a.key_len == 6 && memcmp(a.key, "t1\0e1", 6) == 0);
  CHECK(a.read_ms == 1000 && !a.answered && !a.tried);
  state_ask_free(&a);
  CHECK(a.key == NULL);
  struct state_ask none = {0};
  unsigned char no_payload[] = {0x12, 0x05, 'S', 't', 'a', 't', 'e'};
  CHECK(state_ask_read(&none, no_payload, sizeof no_payload, 0) == 0);
  unsigned char empty_id[] = {0x1a, 0x02, 0x0a, 0x00};
  CHECK(state_ask_read(&none, empty_id, sizeof empty_id, 0) == 0);
  unsigned char varint_id[] = {0x1a, 0x02, 0x08, 0x01};
  CHECK(state_ask_read(&none, varint_id, sizeof varint_id, 0) == 0);
  unsigned char cut[] = {0x1a, 0x09, 0x0a, 0x01};
  CHECK(state_ask_read(&none, cut, sizeof cut, 0) == 0);
  unsigned char nul_in_id[] = {0x1a, 0x04, 0x0a, 0x02, 'a', 0x00};
  CHECK(state_ask_read(&none, nul_in_id, sizeof nul_in_id, 0) == 0);
  CHECK(none.key == NULL);
}

static void kept_and_given(void) {
  unsigned char body[64];
  size_t body_len = keep(42, 2, 0, body);
  CHECK(state_cache_size() == 1);
  CHECK(answers_with(body, body_len));
  /* Another process's key is not answered from t1's. */
  struct state_ask other = ask_for("t1", "e1");
  size_t len;
  CHECK(state_cache_answer(&other, 9, &len) == NULL);
  state_ask_free(&other);
  /* A running process the keeper no longer holds alive is not answered for. */
  running_pid = 43;
  CHECK(!answers());
  /* A stopped one is, whatever the keeper holds. */
  body_len = keep(42, 3, 0, body);
  CHECK(answers_with(body, body_len));
  running_pid = 42;
  state_cache_forget_pid(42);
  CHECK(state_cache_size() == 0 && !answers());
}

static void never_kept(void) {
  unsigned char body[64];
  keep(42, 2, 5, body); /* a failed response (NOT_FOUND) */
  CHECK(state_cache_size() == 0);
  keep(42, 0, 0, body); /* UNKNOWN */
  keep(42, 5, 0, body); /* PAUSING */
  CHECK(state_cache_size() == 0);
  /* A change read after the ask: its answer may be from before the change. */
  struct state_ask a = ask_for("t1", NULL);
  state_cache_change_end(state_cache_change_begin("Shutdown", NULL, 0));
  unsigned char response[128];
  size_t body_len;
  size_t len = state_response(response, 42, 2, 0, body, &body_len);
  state_cache_keep(&a, response, len);
  state_ask_free(&a);
  CHECK(state_cache_size() == 0);
  /* A change in flight: nothing kept, nothing given. */
  struct state_change *ch = state_cache_change_begin("Shutdown", NULL, 0);
  keep(42, 2, 0, body);
  CHECK(state_cache_size() == 0);
  state_cache_change_end(ch);
  keep(42, 2, 0, body);
  CHECK(answers());
  ch = state_cache_change_begin("Shutdown", NULL, 0);
  CHECK(state_cache_size() == 0 && !answers());
  state_cache_change_end(ch);
  /* Bytes that are not protobuf. */
  struct state_ask b = ask_for("t1", NULL);
  unsigned char junk[] = {0x12, 0x7f, 0x00};
  state_cache_keep(&b, junk, sizeof junk);
  unsigned char pid_as_bytes[] = {0x12, 0x04, 0x1a, 0x00, 0x20, 0x02};
  state_cache_keep(&b, pid_as_bytes, sizeof pid_as_bytes);
  state_ask_free(&b);
  CHECK(state_cache_size() == 0);
}

/* Request{3: {1 id, 2 second}}: a change's payload as containerd sends it. */
static size_t change_request(unsigned char *out, const char *id, const char *second) {
  unsigned char body[64];
  size_t b = 0, n = 0;
  field(body, &b, 0x0a, id, strlen(id));
  if (second) field(body, &b, 0x12, second, strlen(second));
  field(out, &n, 0x1a, body, b);
  return n;
}

static struct state_change *begin(const char *method, const char *id, const char *second) {
  unsigned char payload[128];
  size_t len = change_request(payload, id, second);
  return state_cache_change_begin(method, payload, len);
}

/* Keeps a RUNNING answer with `pid` for the process (id, exec). */
static void keep_running(const char *id, const char *exec, unsigned pid) {
  struct state_ask a = ask_for(id, exec);
  unsigned char response[128], body[64];
  size_t body_len;
  size_t len = state_response(response, pid, 2, 0, body, &body_len);
  state_cache_keep(&a, response, len);
  state_ask_free(&a);
}

static int answered(const char *id, const char *exec) {
  struct state_ask a = ask_for(id, exec);
  size_t len = 0;
  unsigned char *frame = state_cache_answer(&a, 7, &len);
  state_ask_free(&a);
  free(frame);
  return frame != NULL;
}

static void keep_pod(void) {
  keep_running("t1", NULL, 42);
  keep_running("t1", "e1", 43);
  keep_running("t2", NULL, 44);
  CHECK(state_cache_size() == 3);
}

/* A change drops, and holds back while in flight, only the answers of what it may touch. */
static void scoped(void) {
  running_pid = 0; /* every pid below runs */
  keep_pod();
  /* An exec's own Start, Kill, Delete: that exec only. */
  struct state_change *ch = begin("Start", "t1", "e1");
  CHECK(answered("t1", NULL) && !answered("t1", "e1") && answered("t2", NULL));
  keep_running("t1", "e1", 43); /* answered while its own change is in flight: not kept */
  state_cache_change_end(ch);
  CHECK(state_cache_size() == 2 && answered("t1", NULL) && answered("t2", NULL));
  /* An init's Delete (or Kill, Start): its task with its execs, not another task. */
  keep_running("t1", "e1", 43);
  ch = begin("Delete", "t1", "");
  CHECK(!answered("t1", NULL) && !answered("t1", "e1") && answered("t2", NULL));
  state_cache_change_end(ch);
  CHECK(state_cache_size() == 1 && answered("t2", NULL));
  /* Checkpoint's 2 is a path, not an exec id: the task's scope. Pause too. */
  keep_pod();
  state_cache_change_end(begin("Checkpoint", "t1", "e1"));
  CHECK(state_cache_size() == 1 && answered("t2", NULL));
  keep_pod();
  state_cache_change_end(begin("Pause", "t2", NULL));
  CHECK(state_cache_size() == 2 && answered("t1", NULL) && answered("t1", "e1"));
  /* Anything else, or a request this cannot read, is the pod's. */
  keep_pod();
  state_cache_change_end(begin("Shutdown", "t1", NULL));
  CHECK(state_cache_size() == 0);
  keep_pod();
  unsigned char junk[] = {0x1a, 0x02, 0x08, 0x01};
  state_cache_change_end(state_cache_change_begin("Kill", junk, sizeof junk));
  CHECK(state_cache_size() == 0);
  /* An exit drops the answers naming its pid, and only those. */
  keep_pod();
  state_cache_forget_pid(43);
  CHECK(state_cache_size() == 2 && answered("t1", NULL) && !answered("t1", "e1") && answered("t2", NULL));
  state_cache_forget_pid(42);
  state_cache_forget_pid(44);
  CHECK(state_cache_size() == 0);
  running_pid = 42;
}

static void payload_frames(void) {
  size_t len = 0;
  unsigned char *frame = ttrpc_payload_frame(3, (const unsigned char *)"", 0, &len);
  CHECK(frame != NULL);
  if (frame != NULL) {
    CHECK(len == TTRPC_HEADER + 2 && frame[10] == 0x12 && frame[11] == 0);
    CHECK(ttrpc_response_ok(frame + TTRPC_HEADER, len - TTRPC_HEADER));
    free(frame);
  }
  CHECK(ttrpc_payload_frame(3, NULL, TTRPC_MAX_PAYLOAD, &len) == NULL);
}

int main(void) {
  state_cache_configure(runs, NULL, 100);
  CHECK(state_cache_hedge_ms() == 100);
  asks();
  kept_and_given();
  never_kept();
  scoped();
  payload_frames();
  return CHECK_RESULT;
}
