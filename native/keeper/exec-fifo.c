/* runc's start handshake on a container's exec fifo (exec-fifo.h). */
#define _GNU_SOURCE
#include "exec-fifo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int exec_fifo_open(struct exec_fifo *f, const char *path) {
  f->bytes = 0;
  f->err = 0;
  f->path = strdup(path);
  if (f->path == NULL) return -1;
  f->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (f->fd >= 0) return 0;
  int err = errno;
  free(f->path);
  f->path = NULL;
  errno = err;
  return -1;
}

enum exec_fifo_state exec_fifo_read(struct exec_fifo *f) {
  char buf[64];
  for (;;) {
    ssize_t n = read(f->fd, buf, sizeof buf);
    if (n > 0) {
      /* Released: from here on runc, which looks for the fifo, reads the container running. */
      if (f->bytes == 0) unlink(f->path);
      f->bytes += (size_t)n;
      continue;
    }
    if (n == 0) return f->bytes > 0 ? EXEC_FIFO_STARTED : EXEC_FIFO_DEAD;
    if (errno == EINTR) continue;
    if (errno == EAGAIN) return EXEC_FIFO_WAITING;
    f->err = errno;
    return EXEC_FIFO_FAILED;
  }
}

enum exec_fifo_state exec_fifo_after_exit(struct exec_fifo *f) {
  enum exec_fifo_state state = exec_fifo_read(f);
  if (state != EXEC_FIFO_WAITING) return state;
  return f->bytes > 0 ? EXEC_FIFO_STARTED : EXEC_FIFO_DEAD;
}

void exec_fifo_close(struct exec_fifo *f) {
  if (f->fd >= 0) close(f->fd);
  f->fd = -1;
  free(f->path);
  f->path = NULL;
}

const char *exec_fifo_word(enum exec_fifo_state state) {
  switch (state) {
  case EXEC_FIFO_STARTED:
    return "started";
  case EXEC_FIFO_DEAD:
    return "dead";
  default:
    return "failed";
  }
}
