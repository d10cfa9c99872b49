/*
 * The processes the keeper holds for the serving process, by key (docs/keeper-protocol.md,
 * "The control connection"): the registry of keys, an exit told (`E`) until it is acked, runc's
 * start handshake (`S`), release and its timers. A key's launch is held-launch.c's; matching a
 * reaped pid to its key is held-reap.c's.
 */
#define _GNU_SOURCE
#include "held.h"
#include "held-entry.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "control-wire.h"
#include "exec-fifo.h"
#include "terminal.h"

#define DRAIN_CHECK_MS 20
#define TERMINAL_GRACE_MS 2000
/* How long a released logger has after its SIGTERM before SIGKILL: the runc shim's binaryIOProcTermTimeout. */
#define LOGGER_TERM_MS 12000

static struct held_registry {
  int epfd;
  struct held *list, *dead;
} registry;

static long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void held_init(int epfd) {
  registry.epfd = epfd;
}

int held_epfd(void) {
  return registry.epfd;
}

struct held *held_first(void) {
  return registry.list;
}

int held_count(void) {
  int n = 0;
  for (struct held *e = registry.list; e != NULL; e = e->next) n++;
  return n;
}

struct held *held_find(const char *key) {
  for (struct held *e = registry.list; e != NULL; e = e->next)
    if (e->kill_deadline == 0 && strcmp(e->key, key) == 0) return e;
  return NULL;
}

void held_add(struct held *e) {
  e->next = registry.list;
  registry.list = e;
}

void held_close_all(struct held *e) {
  exec_fifo_close(&e->start);
  for (int i = 0; i < 6; i++) close_fd(&e->stdio[i]);
  for (int i = 0; i < e->hold_count; i++) close_fd(&e->hold[i]);
  for (int i = 0; i < e->keep_open_count; i++) close_fd(&e->keep_open[i]);
  e->hold_count = e->keep_open_count = 0;
  terminal_close(&e->term);
  close_fd(&e->report);
  if (e->listener >= 0) {
    close_fd(&e->listener);
    unlink(e->console);
  }
}

void held_forget(struct held *e) {
  held_close_all(e);
  struct held **at = &registry.list;
  while (*at != e) at = &(*at)->next;
  *at = e->next;
  e->dead = 1;
  e->next = registry.dead;
  registry.dead = e;
}

void held_collect(void) {
  while (registry.dead != NULL) {
    struct held *e = registry.dead;
    registry.dead = e->next;
    free(e->key);
    free(e->pid_file);
    free(e->console);
    free(e->argv0);
    free(e);
  }
}

static void tell_exit(struct held *e) {
  e->exit_told = 1;
  e->exit_deadline = 0;
  if (e->acked) return;
  char pid[16], status[16], sec[24], nsec[16];
  snprintf(pid, sizeof pid, "%d", (int)e->pid);
  snprintf(status, sizeof status, "%d", e->status);
  snprintf(sec, sizeof sec, "%lld", (long long)e->when.tv_sec);
  snprintf(nsec, sizeof nsec, "%ld", e->when.tv_nsec);
  const char *fields[] = {e->key, pid, status, sec, nsec};
  control_send('E', fields, 5);
}

static void start_settled(struct held *e, enum exec_fifo_state state);

void held_kept_exited(struct held *e, int status, const struct timespec *when) {
  /* An init that dies before its byte never makes the fifo readable: its exit settles the start. */
  if (e->start.fd >= 0) start_settled(e, exec_fifo_after_exit(&e->start));
  e->exited = 1;
  e->status = status;
  e->when = *when;
  for (int i = 0; i < e->keep_open_count; i++) close_fd(&e->keep_open[i]);
  e->keep_open_count = 0;
  /* With a terminal, after its last output; a child that outlived the process may hold it. */
  if (e->term.master >= 0 && !e->term.done) e->exit_deadline = now_ms() + TERMINAL_GRACE_MS;
  else tell_exit(e);
}

int held_runs(int pid) {
  for (const struct held *e = registry.list; e != NULL; e = e->next)
    if (e->pid == pid && !e->exited && !e->dead && e->kill_deadline == 0) return 1;
  return 0;
}

int held_exit_unacked(const char *id, const char *exec_id) {
  size_t id_len = strlen(id);
  for (const struct held *e = registry.list; e != NULL; e = e->next) {
    if (!e->exited || e->acked || e->kill_deadline != 0 || strncmp(e->key, id, id_len) != 0) continue;
    /* Keys as the serving process names them: the task id for its init, "<id>/<exec id>" for an exec. */
    const char *rest = e->key + id_len;
    if (*exec_id == '\0' ? *rest == '\0' : (*rest == '/' && strcmp(rest + 1, exec_id) == 0)) return 1;
  }
  return 0;
}

void held_greet(void) {
  const char *fields[CONTROL_FIELDS_MAX];
  char pids[CONTROL_FIELDS_MAX / 2][16];
  int n = 0;
  for (struct held *e = registry.list; e != NULL && n < CONTROL_FIELDS_MAX; e = e->next) {
    if (e->pid == 0 || e->exited || e->kill_deadline > 0) continue;
    snprintf(pids[n / 2], sizeof pids[n / 2], "%d", (int)e->pid);
    fields[n] = e->key;
    fields[n + 1] = pids[n / 2];
    n += 2;
  }
  control_send('H', fields, n);
  for (struct held *e = registry.list; e != NULL; e = e->next)
    if (e->exit_told && !e->acked) tell_exit(e);
}

void held_close_stdin(const char *key) {
  struct held *e = held_find(key);
  if (e == NULL) return;
  for (int i = 0; i < e->keep_open_count; i++) close_fd(&e->keep_open[i]);
  e->keep_open_count = 0;
}

void held_resize(const char *seq, const char *key, const char *width, const char *height) {
  struct held *e = held_find(key);
  const char *error = "";
  long w = 0, hgt = 0;
  if (e == NULL) {
    error = "no such key";
  } else if (e->term.master < 0) {
    error = "the key has no terminal";
  } else if (control_number(width, &w) != 0 || control_number(height, &hgt) != 0 || w < 0 || hgt < 0 ||
             w > 0xffff || hgt > 0xffff) {
    error = "width and height are numbers from 0 to 65535";
  } else {
    int err = terminal_resize(&e->term, (unsigned short)w, (unsigned short)hgt);
    if (err != 0) error = strerror(err);
  }
  const char *fields[] = {seq, error};
  control_send('r', fields, 2);
}

static void reply_started(const char *seq, const char *outcome, const char *error) {
  const char *fields[] = {seq, outcome, error};
  control_send('s', fields, 3);
}

/* The handshake is over (unless still waiting): `s` goes, the fifo's descriptor closes. */
static void start_settled(struct held *e, enum exec_fifo_state state) {
  if (state == EXEC_FIFO_WAITING) return;
  reply_started(e->start_seq, exec_fifo_word(state), state == EXEC_FIFO_FAILED ? strerror(e->start.err) : "");
  exec_fifo_close(&e->start);
}

void held_start(const char *seq, const char *key, const char *fifo) {
  struct held *e = held_find(key);
  if (e == NULL || e->pid == 0) {
    reply_started(seq, "failed", "no such key");
  } else if (e->start.fd >= 0) {
    reply_started(seq, "failed", "a start of the key is in progress");
  } else if (exec_fifo_open(&e->start, fifo) != 0) {
    /* No fifo: the container is not a created one; runc's own start says what it is. */
    reply_started(seq, errno == ENOENT ? "absent" : "failed", errno == ENOENT ? "" : strerror(errno));
  } else {
    snprintf(e->start_seq, sizeof e->start_seq, "%s", seq);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &e->start_side};
    if (e->exited) {
      start_settled(e, exec_fifo_after_exit(&e->start));
    } else if (epoll_ctl(registry.epfd, EPOLL_CTL_ADD, e->start.fd, &ev) != 0) {
      e->start.err = errno;
      start_settled(e, EXEC_FIFO_FAILED);
    }
  }
}

void held_ack(const char *key) {
  struct held *e = held_find(key);
  if (e != NULL) e->acked = 1;
}

void held_release(const char *key) {
  struct held *e = held_find(key);
  if (e == NULL) return;
  /*
   * A program kept itself (no pid file: a log URI's logger) that still runs is ended as
   * containerd's runc shim ends its logger at Delete (binaryIO.Close): SIGTERM, then SIGKILL
   * after 12 s. It is the keeper's unreaped child, so its pid is its own still; until its reap
   * it counts as held (the keeper stays to end it) but answers to no key.
   */
  if (e->pid_file[0] == '\0' && e->pid > 0 && !e->exited) {
    held_close_all(e);
    kill(e->pid, SIGTERM);
    e->kill_deadline = now_ms() + LOGGER_TERM_MS;
    return;
  }
  /*
   * A process a pid file named, or will name, is released while it runs only when nobody
   * wants it any more: the Delete of an exec, or of a task, whose Start or Create a dead
   * serving process left half-done (docs/failure-domains.md, "A Create cut short"). It gets
   * SIGKILL now, or as soon as its launch ends, and its reap is nobody's exit.
   */
  if (e->pid_file[0] != '\0' && (e->program > 0 || (e->pid > 0 && !e->exited))) {
    /* Its descriptors now (a start in progress ends unanswered), but a launch's at its end. */
    if (e->program == 0) held_close_all(e);
    if (e->pid > 0) kill(e->pid, SIGKILL);
    e->kill_deadline = LONG_MAX;
    return;
  }
  held_forget(e);
}

void held_on_fd(struct side *s, uint32_t events) {
  struct held *e = s->owner;
  if (e->dead) return;
  if (s->kind == SIDE_FIFO) {
    if (e->start.fd >= 0) start_settled(e, exec_fifo_read(&e->start));
    return;
  }
  /* A terminal's exit is told once its last output was copied. */
  if (terminal_on_event(&e->term, s->kind, events) && e->exited && !e->exit_told) tell_exit(e);
}

int held_timeout(void) {
  long soonest = -1, now = now_ms();
  for (struct held *e = registry.list; e != NULL; e = e->next) {
    long left = -1;
    if (e->exited && e->hold_count > 0 && e->term.master < 0) left = DRAIN_CHECK_MS;
    if (e->exit_deadline > 0 && (left < 0 || e->exit_deadline - now < left))
      left = e->exit_deadline - now > 0 ? e->exit_deadline - now : 0;
    if (e->kill_deadline > 0 && e->kill_deadline != LONG_MAX && (left < 0 || e->kill_deadline - now < left))
      left = e->kill_deadline - now > 0 ? e->kill_deadline - now : 0;
    if (left >= 0 && (soonest < 0 || left < soonest)) soonest = left;
  }
  return (int)soonest;
}

void held_tick(void) {
  long now = now_ms();
  for (struct held *e = registry.list; e != NULL; e = e->next) {
    if (e->exit_deadline > 0 && now >= e->exit_deadline) tell_exit(e);
    if (e->kill_deadline > 0 && now >= e->kill_deadline) {
      kill(e->pid, SIGKILL);
      /* Its reap forgets it; until then nothing more to time. */
      e->kill_deadline = LONG_MAX;
    }
    /* A terminal's last output is copied to `O` first (its `E` waits for that too). */
    if (!e->exited || e->hold_count == 0 || e->term.master >= 0) continue;
    /* What the process wrote is read out before the FIFO loses its last writer. */
    int open = 0;
    for (int i = 0; i < e->hold_count; i++) {
      int queued = 0;
      if (e->hold[i] >= 0 && ioctl(e->hold[i], FIONREAD, &queued) == 0 && queued == 0) close_fd(&e->hold[i]);
      if (e->hold[i] >= 0) open++;
    }
    if (open == 0) e->hold_count = 0;
  }
}
