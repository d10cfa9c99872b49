/*
 * Matching a child the keeper reaped to its key: a launching program's exit ends its launch, a
 * kept process's is its key's exit, and any other is remembered for a while, since a pid file
 * read later may name it (a process that exited before the program that started it).
 */
#define _GNU_SOURCE
#include "held.h"
#include "held-entry.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RECENT_MAX 64

/* Reaps no key claimed yet: a pid file may name one of them. */
static struct reaps {
  struct {
    pid_t pid;
    int status;
    struct timespec when;
  } recent[RECENT_MAX];
  int next;
} reaps;

/* A small file's text, NUL-ended, into buf: 0, or -1 when it cannot be read or is empty. */
static int read_small(const char *path, char *buf, size_t size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, size - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  return 0;
}

pid_t held_read_pid_file(const char *path) {
  char text[32];
  if (read_small(path, text, sizeof text) != 0) return 0;
  long pid = strtol(text, NULL, 10);
  return pid > 0 && pid < 1L << 30 ? (pid_t)pid : 0;
}

/* Whether `pid` runs (or waits to be reaped) as the keeper's child: only then will its exit come. */
static int is_child(pid_t pid) {
  char path[32], stat[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  if (read_small(path, stat, sizeof stat) != 0) return 0;
  /* "pid (comm) state ppid ...": comm may hold spaces and parentheses, so from the last ')'. */
  const char *end = strrchr(stat, ')');
  char state;
  int ppid;
  if (end == NULL || sscanf(end + 1, " %c %d", &state, &ppid) != 2) return 0;
  return ppid == (int)getpid();
}

int held_reap_claim(pid_t pid, int *status, struct timespec *when) {
  int reaped = -1;
  for (int i = 0; i < RECENT_MAX; i++) {
    if (reaps.recent[i].pid != pid) continue;
    reaps.recent[i].pid = 0;
    /* A process that runs under this pid now is the pid file's: the reap was of an older one. */
    if (!is_child(pid)) reaped = i;
  }
  if (reaped < 0) return is_child(pid) ? 0 : -1;
  *status = reaps.recent[reaped].status;
  *when = reaps.recent[reaped].when;
  return 1;
}

int held_reaped(int pid, int status) {
  struct timespec when;
  clock_gettime(CLOCK_REALTIME, &when);
  for (struct held *e = held_first(); e != NULL; e = e->next) {
    if (e->program == pid) {
      held_program_exited(e, status);
      return 0;
    }
    if (e->pid == pid && !e->exited) {
      if (e->kill_deadline > 0) held_forget(e);
      else held_kept_exited(e, status, &when);
      return 1;
    }
  }
  reaps.recent[reaps.next].pid = pid;
  reaps.recent[reaps.next].status = status;
  reaps.recent[reaps.next].when = when;
  reaps.next = (reaps.next + 1) % RECENT_MAX;
  return 0;
}
