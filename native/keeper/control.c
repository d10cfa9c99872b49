/*
 * The control connection (docs/keeper-protocol.md, "The control connection"). Descriptors
 * arrive as SCM_RIGHTS on the bytes of their message; they wait in arrival order until a
 * whole `L` takes as many as its roles say. A peer that breaks a rule loses the connection,
 * and every descriptor not yet taken; the keeper connects again (after a pause that grows
 * while connections keep failing).
 */
#define _GNU_SOURCE
#include "control.h"
#include "unix-socket.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "control-wire.h"
#include "relay.h"
#include "say.h"
#include "serving.h"

#define READ_CHUNK 65536
#define FDS_MAX 64 /* waiting for their message: more than any one launch's roles */
#define RETRY_FIRST_MS 50
#define RETRY_MAX_MS 2000

static struct control_state {
  int epfd;
  const struct keeper_config *config;
  const struct control_handlers *handlers;
  const char *fields;
  size_t fields_len;
  int fd;
  unsigned char *in, *out;
  size_t in_len, in_cap, out_len, out_cap, out_done;
  int fds[FDS_MAX];
  int fd_count;
  int out_watched;
  long retry_ms;
  struct timespec retry_at; /* no connect before this */
  int handed_over;          /* the serving process said `Q`: its close is a hand-over, reconnect at once */
} control = {.fd = -1};

static struct side control_side = {.kind = SIDE_CONTROL};

static long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void control_init(int epfd, const struct keeper_config *config, const char *fields, size_t fields_len,
                  const struct control_handlers *handlers) {
  control.epfd = epfd;
  control.config = config;
  control.handlers = handlers;
  control.fields = fields;
  control.fields_len = fields_len;
}

int control_connected(void) {
  return control.fd >= 0;
}

static void drop_fds(void) {
  for (int i = 0; i < control.fd_count; i++) close(control.fds[i]);
  control.fd_count = 0;
}

void control_close(void) {
  if (control.fd < 0) return;
  close(control.fd);
  control.fd = -1;
  control.in_len = control.out_len = control.out_done = 0;
  control.out_watched = 0;
  drop_fds();
  free(control.in);
  free(control.out);
  control.in = control.out = NULL;
  control.in_cap = control.out_cap = 0;
}

/* A lost or refused connection: the next one waits, longer each time it fails again soon. */
static void lost(void) {
  control_close();
  if (control.handed_over) {
    /* Its successor is on the same listener already (docs/upgrade.md): no pause. */
    control.handed_over = 0;
    control.retry_ms = 0;
    clock_gettime(CLOCK_MONOTONIC, &control.retry_at);
    return;
  }
  control.retry_ms = control.retry_ms ? control.retry_ms * 2 : RETRY_FIRST_MS;
  if (control.retry_ms > RETRY_MAX_MS) control.retry_ms = RETRY_MAX_MS;
  clock_gettime(CLOCK_MONOTONIC, &control.retry_at);
  control.retry_at.tv_sec += control.retry_ms / 1000;
  control.retry_at.tv_nsec += (control.retry_ms % 1000) * 1000000;
  if (control.retry_at.tv_nsec >= 1000000000) {
    control.retry_at.tv_sec++;
    control.retry_at.tv_nsec -= 1000000000;
  }
}

static long retry_left(void) {
  long at = control.retry_at.tv_sec * 1000 + control.retry_at.tv_nsec / 1000000;
  return at - now_ms();
}

static void flush(void) {
  while (control.out_done < control.out_len) {
    ssize_t n = write(control.fd, control.out + control.out_done, control.out_len - control.out_done);
    if (n < 0) {
      if (errno == EINTR) continue;
      /* A broken connection: its read side reports it (EPOLLHUP, EOF) and closes it there. */
      if (errno != EAGAIN) control.out_done = control.out_len = 0;
      break;
    }
    control.out_done += (size_t)n;
  }
  if (control.out_done == control.out_len) control.out_done = control.out_len = 0;
  int want = control.out_len > 0;
  if (want != control.out_watched) {
    struct epoll_event ev = {.events = EPOLLIN | (want ? EPOLLOUT : 0), .data.ptr = &control_side};
    epoll_ctl(control.epfd, EPOLL_CTL_MOD, control.fd, &ev);
    control.out_watched = want;
  }
}

void control_send(char type, const char *const *fields, int count) {
  if (control.fd < 0) return;
  size_t size;
  unsigned char *message = control_message(type, fields, count, &size);
  if (message == NULL) return;
  if (control.out_len + size > control.out_cap) {
    size_t cap = control.out_cap ? control.out_cap : 4096;
    while (cap < control.out_len + size) cap *= 2;
    unsigned char *out = realloc(control.out, cap);
    if (out == NULL) {
      free(message);
      return;
    }
    control.out = out;
    control.out_cap = cap;
  }
  memcpy(control.out + control.out_len, message, size);
  control.out_len += size;
  free(message);
  flush();
}

void control_ensure(void) {
  if (control.fd >= 0 || retry_left() > 0) return;
  char why[PATH_MAX + 160];
  int fd = serving_connect(control.config, why, sizeof why);
  if (fd < 0) {
    keeper_say("control connection: %s", why);
    lost();
    return;
  }
  if (preamble_send(fd, ROLE_CONTROL, control.fields, control.fields_len) != 0) {
    close(fd);
    lost();
    return;
  }
  control.fd = fd;
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &control_side};
  epoll_ctl(control.epfd, EPOLL_CTL_ADD, fd, &ev);
  control.handlers->greet();
}

/* One whole message; 0, or -1 when it breaks the protocol. */
static int dispatch(const unsigned char *message, size_t size) {
  static const char *fields[CONTROL_FIELDS_MAX];
  char type;
  int count = control_request(message, size, &type, fields, CONTROL_FIELDS_MAX);
  if (count < 0) return -1;
  switch (type) {
  case 'L': {
    int roles = (int)strlen(fields[4]);
    if (roles > control.fd_count) return -1;
    int fds[FDS_MAX];
    memcpy(fds, control.fds, sizeof(int) * (size_t)roles);
    memmove(control.fds, control.fds + roles, sizeof(int) * (size_t)(control.fd_count - roles));
    control.fd_count -= roles;
    control.handlers->launch(fields, count, fds);
    return 0;
  }
  case 'C':
    control.handlers->close_stdin(fields[0]);
    return 0;
  case 'R':
    control.handlers->resize(fields[0], fields[1], fields[2], fields[3]);
    return 0;
  case 'S':
    control.handlers->start(fields[0], fields[1], fields[2]);
    return 0;
  case 'A':
    control.handlers->ack(fields[0]);
    return 0;
  case 'Q':
    control.handed_over = 1;
    control.handlers->handing_over();
    return 0;
  default: /* 'D' */
    control.handlers->release(fields[0]);
    return 0;
  }
}

/* Reads with the descriptors that come along; -1 when the connection is gone. */
static int receive(void) {
  if (control.in_cap - control.in_len < READ_CHUNK) {
    size_t cap = control.in_cap ? control.in_cap * 2 : READ_CHUNK * 2;
    unsigned char *in = realloc(control.in, cap);
    if (in == NULL) return -1;
    control.in = in;
    control.in_cap = cap;
  }
  int got = 0, dropped = 0;
  long n = unix_recv_fds(control.fd, control.in + control.in_len, READ_CHUNK, 0, control.fds + control.fd_count, FDS_MAX - control.fd_count, &got, &dropped);
  if (n < 0) return errno == EAGAIN || errno == EINTR ? 0 : -1;
  control.fd_count += got;
  if (n == 0 || dropped) return -1;
  control.in_len += (size_t)n;
  return 0;
}

void control_on_event(uint32_t events) {
  if (control.fd < 0) return;
  if (events & EPOLLOUT) flush();
  if (control.fd < 0 || !(events & (EPOLLIN | EPOLLHUP | EPOLLERR))) return;
  if (receive() != 0) {
    /* Every connection while the serving process does not take control connections: only with -debug. */
    if (control.config->debug) keeper_say("the control connection closed");
    lost();
    return;
  }
  size_t off = 0, size = 0;
  int whole;
  while ((whole = control_frame(control.in + off, control.in_len - off, &size)) == 1) {
    if (dispatch(control.in + off, size) != 0) break;
    off += size;
    if (control.fd < 0) return;
  }
  if (whole != 0) {
    keeper_say("the serving process sent a malformed control message: closing the control connection");
    lost();
    return;
  }
  /* The peer speaks the protocol: the next failure starts with a short pause again. */
  if (off > 0) control.retry_ms = 0;
  memmove(control.in, control.in + off, control.in_len - off);
  control.in_len -= off;
}

void control_read_waiting(void) {
  control_on_event(EPOLLIN);
}

int control_timeout(int wanted) {
  if (control.fd >= 0 || !wanted) return -1;
  long left = retry_left();
  return left > 0 ? (int)left : 0;
}

void control_tick(int wanted) {
  if (control.fd < 0 && wanted) control_ensure();
}
