/* A kept process's terminal (terminal.h). */
#define _GNU_SOURCE
#include "terminal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define COPY_CHUNK 65536

/* One buffer for every copy: the keeper has one thread. */
static char copy_buf[COPY_CHUNK];

static void close_fd(int *fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

void terminal_init(struct terminal *t, int epfd, void *owner) {
  memset(t, 0, sizeof *t);
  t->epfd = epfd;
  t->master = t->in = t->out = -1;
  t->master_side = (struct side){.kind = SIDE_MASTER, .owner = owner};
  t->input_side = (struct side){.kind = SIDE_INPUT, .owner = owner};
  t->output_side = (struct side){.kind = SIDE_OUTPUT, .owner = owner};
}

/* What epoll watches on the master: its output unless `O` holds some back, writability while input waits. */
static void update_master(struct terminal *t) {
  if (t->master < 0) return;
  uint32_t want = (t->pending_len == 0 ? EPOLLIN : 0) | (t->input_len > 0 ? EPOLLOUT : 0);
  if (want == t->master_events) return;
  struct epoll_event ev = {.events = want, .data.ptr = &t->master_side};
  int op = want == 0 ? EPOLL_CTL_DEL : t->master_events == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
  if (epoll_ctl(t->epfd, op, t->master, &ev) == 0) t->master_events = want;
}

/* `N` is read while its buffer has room, and not while it is full (backpressure). */
static void update_in(struct terminal *t) {
  if (t->in < 0) return;
  int want = t->input_len < TERMINAL_INPUT_MAX;
  if (want == t->in_watched) return;
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &t->input_side};
  if (epoll_ctl(t->epfd, want ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, t->in, &ev) == 0) t->in_watched = want;
  /* A regular file cannot be watched: a terminal's input is a FIFO or a socket. */
  else if (want) close_fd(&t->in);
}

void terminal_watch(struct terminal *t, int master) {
  t->master = master;
  fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
  update_master(t);
  update_in(t);
}

/* Writes what input waits into the terminal, as much as it takes now; the rest waits for EPOLLOUT. */
static void flush_input(struct terminal *t) {
  while (t->input_len > 0 && t->master >= 0) {
    ssize_t n = write(t->master, t->input + t->input_off, t->input_len);
    if (n > 0) {
      t->input_off += (size_t)n;
      t->input_len -= (size_t)n;
    } else if (n < 0 && errno == EAGAIN) {
      break;
    } else if (!(n < 0 && errno == EINTR)) {
      t->input_len = 0; /* the terminal is gone (EIO): nobody will read it */
    }
  }
  if (t->input_len == 0) t->input_off = 0;
  update_master(t);
  update_in(t);
}

/* `N` has bytes: read into the room left (it is not watched when there is none), then written on. */
static void read_input(struct terminal *t) {
  if (t->input == NULL && (t->input = malloc(TERMINAL_INPUT_MAX)) == NULL) return;
  if (t->input_off > 0) {
    memmove(t->input, t->input + t->input_off, t->input_len);
    t->input_off = 0;
  }
  ssize_t n = read(t->in, t->input + t->input_len, TERMINAL_INPUT_MAX - t->input_len);
  if (n > 0) {
    t->input_len += (size_t)n;
    flush_input(t);
  } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
    /* What it holds already still goes into the terminal. */
    close_fd(&t->in);
    t->in_watched = 0;
  }
}

/*
 * `O` is full (a FIFO nobody reads now): what it did not take waits here and the master is not
 * read until `O` is writable again, so the process blocks on its terminal as it would on a full
 * FIFO, nothing is dropped, and the keeper's loop never waits on it.
 */
static void hold_back(struct terminal *t, const char *buf, size_t len) {
  if (t->pending == NULL) t->pending = malloc(COPY_CHUNK);
  struct epoll_event ev = {.events = EPOLLOUT, .data.ptr = &t->output_side};
  if (t->pending == NULL || epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->out, &ev) != 0) return; /* dropped */
  memmove(t->pending, buf, len);
  t->pending_off = 0;
  t->pending_len = len;
  update_master(t);
}

/* Copies a chunk of output to `O`; 1 when part of it was held back. A failing `O` (nobody can read it) drops it. */
static int copy_out(struct terminal *t, const char *buf, size_t len) {
  while (len > 0 && t->out >= 0) {
    ssize_t n = write(t->out, buf, len);
    if (n > 0) {
      buf += n;
      len -= (size_t)n;
    } else if (n < 0 && errno == EAGAIN) {
      hold_back(t, buf, len);
      return t->pending_len > 0;
    } else if (!(n < 0 && errno == EINTR)) {
      return 0;
    }
  }
  return 0;
}

/* `O` is writable again: what was held back goes, then the master is read again. */
static void flush_out(struct terminal *t) {
  while (t->pending_len > 0 && t->out >= 0) {
    ssize_t n = write(t->out, t->pending + t->pending_off, t->pending_len);
    if (n > 0) {
      t->pending_off += (size_t)n;
      t->pending_len -= (size_t)n;
    } else if (n < 0 && errno == EAGAIN) {
      return;
    } else if (!(n < 0 && errno == EINTR)) {
      break;
    }
  }
  t->pending_len = 0;
  if (t->out >= 0) epoll_ctl(t->epfd, EPOLL_CTL_DEL, t->out, NULL);
  update_master(t);
}

/* Copies what the master has (up to 16 chunks a round); 1 once it reads EIO: no writer is left. */
static int copy_master(struct terminal *t) {
  if (t->master < 0 || t->pending_len > 0) return 0;
  for (int round = 0; round < 16; round++) {
    ssize_t n = read(t->master, copy_buf, sizeof copy_buf);
    if (n > 0) {
      if (copy_out(t, copy_buf, (size_t)n)) return 0;
      continue;
    }
    return n == 0 || (errno != EAGAIN && errno != EINTR);
  }
  return 0;
}

int terminal_on_event(struct terminal *t, enum side_kind kind, uint32_t events) {
  if (kind == SIDE_OUTPUT) {
    flush_out(t);
    return 0;
  }
  if (kind == SIDE_MASTER) {
    if (events & EPOLLOUT) flush_input(t);
    if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR))) return 0;
    if (!copy_master(t)) return 0;
    terminal_close(t);
    t->done = 1;
    return 1;
  }
  if (t->in < 0 || !(events & (EPOLLIN | EPOLLHUP | EPOLLERR))) return 0;
  read_input(t);
  return 0;
}

int terminal_resize(struct terminal *t, unsigned short cols, unsigned short rows) {
  struct winsize size;
  memset(&size, 0, sizeof size);
  size.ws_col = cols;
  size.ws_row = rows;
  return ioctl(t->master, TIOCSWINSZ, &size) == 0 ? 0 : errno;
}

void terminal_close(struct terminal *t) {
  close_fd(&t->master);
  close_fd(&t->in);
  close_fd(&t->out);
  free(t->pending);
  t->pending = NULL;
  t->pending_len = 0;
  free(t->input);
  t->input = NULL;
  t->input_off = t->input_len = 0;
  t->master_events = 0;
  t->in_watched = 0;
}
