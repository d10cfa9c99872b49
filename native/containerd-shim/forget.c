/* `delete`'s forget connection (forget.h). */
#define _GNU_SOURCE
#include "forget.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "preamble.h"
#include "task-layout.h"
#include "unix-socket.h"

static long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Reads until the peer closes (1), or the deadline passes or the connection fails otherwise (0). */
static int closed_by_peer(int fd, long long deadline) {
  char sink[256];
  for (;;) {
    long long left = deadline - now_ms();
    if (left <= 0) return 0;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int ready = poll(&p, 1, (int)left);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return 0;
    ssize_t n = read(fd, sink, sizeof sink);
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return 1;
    if (n < 0 && errno != EINTR && errno != EAGAIN) return 0;
  }
}

enum forget_result forget_task(const char *group_socket, const char *id, int timeout_ms) {
  long long deadline = now_ms() + timeout_ms;
  int fd = unix_connect(group_socket, SOCK_CLOEXEC);
  /* A serving process that died and was not started again holds nothing; none is started for this. */
  if (fd < 0) return errno == ECONNREFUSED || errno == ENOENT ? FORGET_NOBODY : FORGET_NO_ANSWER;
  char fields[LAYOUT_NAME_MAX + 16];
  int len = snprintf(fields, sizeof fields, "task=%s", id);
  int ok = len > 0 && (size_t)len < sizeof fields &&
           preamble_send(fd, ROLE_FORGET, fields, (size_t)len + 1) == 0 && closed_by_peer(fd, deadline);
  close(fd);
  return ok ? FORGET_DONE : FORGET_NO_ANSWER;
}
