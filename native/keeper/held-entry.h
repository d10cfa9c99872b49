/*
 * What the three files of the held processes share (held.c, the registry of keys with their
 * exits, acks, start handshakes and release timers; held-launch.c, `L` and its roles;
 * held-reap.c, matching reaped pids to keys): one key's entry and the calls they make on each
 * other. The rest of the keeper sees held.h only.
 */
#ifndef SKIFF_KEEPER_HELD_ENTRY_H
#define SKIFF_KEEPER_HELD_ENTRY_H

#include <limits.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "exec-fifo.h"
#include "relay.h"
#include "terminal.h"

#define ROLES_MAX 16
#define ERROR_MAX (PATH_MAX + 160)

struct held {
  struct held *next;
  char *key;
  int dead;
  /* The launch: the program's pid until it exits, what it was given, what `l` needs. */
  pid_t program;
  char seq[24];
  char *pid_file, *console, *argv0;
  int listener, report;
  int stdio[6]; /* 0-2, and 3-5 for a logger's pipes (roles `3` `4` `5`) */
  int hold[ROLES_MAX], hold_count;
  int keep_open[ROLES_MAX], keep_open_count; /* I */
  /* Its terminal: roles `O` and `N` until the master comes. */
  struct terminal term;
  /* The process kept, and its exit. */
  pid_t pid;
  int exited, status, exit_told, acked;
  struct timespec when;
  long exit_deadline; /* monotonic ms; 0 when none */
  long kill_deadline;  /* released while it ran: SIGKILL then, unless reaped first (monotonic ms; 0 when none) */
  /* `S`: runc's start handshake with the kept init, and the seq its `s` answers. */
  struct exec_fifo start;
  char start_seq[24];
  struct side start_side;
};

static inline void close_fd(int *fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

/* held.c: the registry. */
int held_epfd(void);
/* The keys held, newest first (then e->next). */
struct held *held_first(void);
/* A released logger still ending is no key's any more: its key may be launched again. */
struct held *held_find(const char *key);
void held_add(struct held *e);
void held_close_all(struct held *e);
/* Forgets the key; freed at the end of the round (an event of this round may still point at it). */
void held_forget(struct held *e);
/* The kept process exited: its `E` goes now, or after a terminal's last output. */
void held_kept_exited(struct held *e, int status, const struct timespec *when);

/* held-launch.c: the launching program exited (runc create, runc exec): what it left is kept, or `l` says why not. */
void held_program_exited(struct held *e, int status);

/* held-reap.c. */
/* The pid in a pid file (runc writes it without a newline); 0 when there is none. */
pid_t held_read_pid_file(const char *path);
/* What became of `pid`, a pid file's, before the file was read: 1 with the status and time of its
 * reap, which no key had claimed; 0 when it is the keeper's child still (its reap is to come);
 * -1 when neither: not a process the keeper can reap. */
int held_reap_claim(pid_t pid, int *status, struct timespec *when);

#endif
