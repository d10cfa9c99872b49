/*
 * native/keeper/relay.c with state_ask_waits (state-cache.h): a State for a process whose exit
 * the keeper told and the serving process has not acked waits in the keeper, so that the
 * serving process never reads it before the `E` it comes after (two connections, no order
 * between them); other requests, and States of other processes, go on at once.
 */
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "relay.h"

/* The one process whose exit is "told, not acked": task t1's init, while `unacked` is set. */
static int unacked = 1;
static int exit_unacked(const char *id, const char *exec_id) {
  return unacked && strcmp(id, "t1") == 0 && exec_id[0] == '\0';
}
static int runs(int pid) {
  (void)pid;
  return 0;
}

static void field(unsigned char *out, size_t *n, unsigned char tag, const void *bytes, size_t len) {
  out[(*n)++] = tag;
  out[(*n)++] = (unsigned char)len;
  memcpy(out + *n, bytes, len);
  *n += len;
}

/* A whole ttrpc request frame for `method` on `stream` with Request{3: {1 id, 2 exec}}. */
static size_t request(unsigned char *out, uint32_t stream, const char *method, const char *id, const char *exec) {
  unsigned char body[64], payload[160];
  size_t b = 0, n = 0;
  field(body, &b, 0x0a, id, strlen(id));
  field(body, &b, 0x12, exec, strlen(exec));
  field(payload, &n, 0x0a, "containerd.task.v2.Task", 23);
  field(payload, &n, 0x12, method, strlen(method));
  field(payload, &n, 0x1a, body, b);
  unsigned char header[TTRPC_HEADER] = {0, 0, 0, (unsigned char)n, 0, 0, 0, (unsigned char)stream, TTRPC_REQUEST, 0};
  memcpy(out, header, TTRPC_HEADER);
  memcpy(out + TTRPC_HEADER, payload, n);
  return TTRPC_HEADER + n;
}

static int count(const struct queue *q) {
  int n = 0;
  for (const struct frame *f = q->head; f != NULL; f = f->next) n++;
  return n;
}

static void send_down(int fd, struct relay *r, uint32_t stream, const char *method, const char *id, const char *exec) {
  unsigned char frame[256];
  size_t len = request(frame, stream, method, id, exec);
  CHECK(write(fd, frame, len) == (ssize_t)len);
  CHECK(relay_read(r, 0) == RELAY_OK);
}

int main(void) {
  state_cache_configure(runs, exit_unacked, 100);
  int down[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, down) != 0) abort();
  struct relay *r = relay_new(down[0]);

  /* The exited init's State waits; an exec's State, and a Wait of the same init, do not. */
  send_down(down[1], r, 1, "State", "t1", "");
  CHECK(count(&r->parked) == 1 && count(&r->to_up) == 0);
  send_down(down[1], r, 3, "State", "t1", "x1");
  send_down(down[1], r, 5, "Wait", "t1", "");
  CHECK(count(&r->parked) == 1 && count(&r->to_up) == 2);
  CHECK(relay_unpark(r) == 0);

  /* The ack came: the State goes to the serving process, after what was queued before it. */
  unacked = 0;
  CHECK(relay_unpark(r) == 1);
  CHECK(count(&r->parked) == 0 && count(&r->to_up) == 3);
  CHECK(r->to_up.tail != NULL && r->to_up.tail->stream_id == 1);

  /* No serving process answers any more: a parked State is refused with the rest, never left waiting. */
  unacked = 1;
  send_down(down[1], r, 7, "State", "t1", "");
  CHECK(count(&r->parked) == 1);
  relay_refuse_waiting(r, "gone");
  CHECK(count(&r->parked) == 0 && count(&r->to_up) == 0 && count(&r->to_down) == 4);

  /* Without the keeper's hook (the units above it), nothing waits. */
  state_cache_configure(runs, NULL, 100);
  send_down(down[1], r, 9, "State", "t1", "");
  CHECK(count(&r->parked) == 0 && count(&r->to_up) == 1);

  relay_free(r);
  close(down[1]);
  return CHECK_RESULT;
}
