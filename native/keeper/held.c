/*
 * The processes the keeper holds for the serving process, by key (docs/keeper-protocol.md,
 * "The control connection"): `L` runs a program as the keeper's child and keeps what it
 * leaves behind (its pid file's process: the keeper is a subreaper, so that process is its
 * child too); every reap is matched to a key, and an exit is told (`E`) until it is acked.
 */
#define _GNU_SOURCE
#include "held.h"
#include "unix-socket.h"
#include "exec-report.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "control-wire.h"
#include "exec-fifo.h"
#include "terminal.h"

#define ROLES_MAX 16
#define DRAIN_CHECK_MS 20
#define TERMINAL_GRACE_MS 2000
#define RECENT_MAX 64
#define ERROR_MAX (PATH_MAX + 160)
/* How long a released logger has after its SIGTERM before SIGKILL: the runc shim's binaryIOProcTermTimeout. */
#define LOGGER_TERM_MS 12000

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

static struct {
  int epfd;
  struct held *list, *dead;
  struct {
    pid_t pid;
    int status;
    struct timespec when;
  } recent[RECENT_MAX]; /* reaps no key claimed yet: a pid file may name one of them */
  int recent_next;
} h;

static long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void close_fd(int *fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

void held_init(int epfd) {
  h.epfd = epfd;
}

int held_count(void) {
  int n = 0;
  for (struct held *e = h.list; e != NULL; e = e->next) n++;
  return n;
}

/* A released logger still ending is no key's any more: its key may be launched again. */
static struct held *find(const char *key) {
  for (struct held *e = h.list; e != NULL; e = e->next)
    if (e->kill_deadline == 0 && strcmp(e->key, key) == 0) return e;
  return NULL;
}

static void close_all(struct held *e) {
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

/* Forgets the key; freed at the end of the round (an event of this round may still point at it). */
static void forget(struct held *e) {
  close_all(e);
  struct held **at = &h.list;
  while (*at != e) at = &(*at)->next;
  *at = e->next;
  e->dead = 1;
  e->next = h.dead;
  h.dead = e;
}

void held_collect(void) {
  while (h.dead != NULL) {
    struct held *e = h.dead;
    h.dead = e->next;
    free(e->key);
    free(e->pid_file);
    free(e->console);
    free(e->argv0);
    free(e);
  }
}

static void reply_launched(const char *seq, int status, pid_t pid, const char *error) {
  char status_text[16], pid_text[16];
  snprintf(status_text, sizeof status_text, "%d", status);
  snprintf(pid_text, sizeof pid_text, "%d", (int)pid);
  const char *fields[] = {seq, status_text, pid_text, error};
  control_send('l', fields, 4);
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

static void kept_exited(struct held *e, int status, const struct timespec *when) {
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

/*
 * Every other descriptor closed, default signals, an empty mask: the program starts clean.
 * Roles 3-5 land on fds 3-5, so every role's descriptor (and the report pipe) is first moved
 * above them: one of them may be numbered 3, 4 or 5 in the keeper.
 */
_Noreturn static void exec_program(struct held *e, char **argv, char **envp, int report) {
  int null = open("/dev/null", O_RDWR);
  int high[6];
  report = fcntl(report, F_DUPFD_CLOEXEC, 16);
  for (int i = 0; i < 6; i++) high[i] = e->stdio[i] >= 0 ? fcntl(e->stdio[i], F_DUPFD, 16) : -1;
  for (int i = 0; i < 3; i++) dup2(high[i] >= 0 ? high[i] : null, i);
  for (int i = 3; i < 6; i++) {
    if (high[i] >= 0) dup2(high[i], i);
    else close(i);
  }
  int max = (int)sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > 65536) max = 65536;
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 6, report - 1, 0) != 0 || syscall(SYS_close_range, report + 1, ~0U, 0) != 0)
#endif
    for (int fd = 6; fd < max; fd++)
      if (fd != report) close(fd);
  sigset_t none;
  sigemptyset(&none);
  for (int sig = 1; sig < NSIG; sig++) signal(sig, SIG_DFL);
  sigprocmask(SIG_SETMASK, &none, NULL);
  if (envp != NULL) execve(argv[0], argv, envp);
  else execv(argv[0], argv);
  exec_report_failed(report);
}

/* Places each role's descriptor; -1 with `error` when a role is not one. */
static int take_roles(struct held *e, const char *roles, int *fds, char *error) {
  int n = (int)strlen(roles);
  for (int i = 0; i < n; i++) {
    int *slot = NULL;
    switch (roles[i]) {
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
      slot = &e->stdio[roles[i] - '0'];
      break;
    case 'H':
      slot = e->hold_count < ROLES_MAX ? &e->hold[e->hold_count++] : NULL;
      break;
    case 'I':
      slot = e->keep_open_count < ROLES_MAX ? &e->keep_open[e->keep_open_count++] : NULL;
      break;
    case 'O':
      slot = &e->term.out;
      break;
    case 'N':
      slot = &e->term.in;
      break;
    default:
      break;
    }
    if (slot == NULL || *slot >= 0) {
      snprintf(error, ERROR_MAX, "role '%c' is not one of 0-5 H I O N, or comes twice", roles[i]);
      for (int j = i; j < n; j++) close(fds[j]);
      return -1;
    }
    *slot = fds[i];
  }
  return 0;
}

/* Why a launch cannot go on, before the fork ("" when it can); the roles' descriptors are e's or closed. */
static void check_launch(struct held *e, const char *const *fields, int *fds, char *error) {
  if (find(fields[1]) != NULL) {
    snprintf(error, ERROR_MAX, "key %s is held already: release it first", fields[1]);
  } else if (e->key == NULL || e->pid_file == NULL || e->console == NULL || e->argv0 == NULL) {
    snprintf(error, ERROR_MAX, "the keeper is out of memory");
  } else {
    /* Placed now: from here on, forgetting e closes them. */
    if (take_roles(e, fields[4], fds, error) != 0) return;
    if (e->argv0[0] != '/')
      snprintf(error, ERROR_MAX, "the program %s is not an absolute path", e->argv0);
    else if ((e->term.out >= 0 || e->term.in >= 0) && e->console[0] == '\0')
      snprintf(error, ERROR_MAX, "roles O and N need a console socket");
    else if (e->console[0] != '\0' && e->pid_file[0] == '\0')
      snprintf(error, ERROR_MAX, "a console socket needs a pid file: the program's exit says when the terminal came");
    else if (e->console[0] != '\0' && (e->listener = unix_listen(e->console, SOCK_CLOEXEC | SOCK_NONBLOCK, 1)) < 0)
      snprintf(error, ERROR_MAX, "cannot listen on the console socket %s: %s", e->console, strerror(errno));
    return;
  }
  int n = (int)strlen(fields[4]);
  for (int i = 0; i < n; i++) close(fds[i]);
}

void held_launch(const char *const *fields, int count, int *fds) {
  const char *seq = fields[0];
  char error[ERROR_MAX] = "";
  struct held *e = calloc(1, sizeof *e);
  /* Fields 5...: `NAME=value` entries, the program's whole environment (none: the keeper's), then argv. */
  int first = 5;
  while (first < count && fields[first][0] != '/' && strchr(fields[first], '=') != NULL) first++;
  char **argv = calloc((size_t)(count - 5 + 2), sizeof *argv);
  if (e == NULL || argv == NULL) {
    free(e);
    free(argv);
    int n = (int)strlen(fields[4]);
    for (int i = 0; i < n; i++) close(fds[i]);
    reply_launched(seq, -1, 0, "the keeper is out of memory");
    return;
  }
  for (int i = 0; i < 6; i++) e->stdio[i] = -1;
  for (int i = 0; i < ROLES_MAX; i++) e->hold[i] = e->keep_open[i] = -1;
  e->listener = e->report = -1;
  terminal_init(&e->term, h.epfd, e);
  e->start = (struct exec_fifo)EXEC_FIFO_NONE;
  e->start_side = (struct side){.kind = SIDE_FIFO, .owner = e};
  snprintf(e->seq, sizeof e->seq, "%s", seq);
  e->key = strdup(fields[1]);
  e->pid_file = strdup(fields[2]);
  e->console = strdup(fields[3]);
  e->argv0 = strdup(first < count ? fields[first] : "");
  /* One array: argv, its NULL, then the environment and its NULL. */
  for (int i = first; i < count; i++) argv[i - first] = (char *)fields[i];
  char **envp = first > 5 ? argv + (count - first) + 1 : NULL;
  for (int i = 5; i < first; i++) envp[i - 5] = (char *)fields[i];
  check_launch(e, fields, fds, error);
  int report[2] = {-1, -1};
  if (error[0] == '\0' && pipe2(report, O_CLOEXEC) != 0)
    snprintf(error, sizeof error, "cannot make a pipe: %s", strerror(errno));
  pid_t pid = -1;
  if (error[0] == '\0') {
    pid = fork();
    if (pid == 0) exec_program(e, argv, envp, report[1]);
    close(report[1]);
    if (pid < 0) {
      snprintf(error, sizeof error, "cannot fork: %s", strerror(errno));
      close(report[0]);
    }
  }
  free(argv);
  e->next = h.list;
  h.list = e;
  if (error[0] != '\0') {
    forget(e);
    reply_launched(seq, -1, 0, error);
    return;
  }
  if (e->pid_file[0] != '\0') {
    /* Its exit says what to keep (held_reaped). */
    e->program = pid;
    e->report = report[0];
    return;
  }
  /* No pid file: the program itself is kept, from its exec on (EOF on the pipe; an errno if the exec failed). */
  int err = exec_report_wait(report[0]);
  if (err != 0) {
    snprintf(error, sizeof error, "cannot run %s: %s", e->argv0, strerror(err));
    forget(e);
    reply_launched(seq, -1, 0, error);
    return;
  }
  /* The program has its copies: a reader of its output meets EOF once the program's side closes. */
  for (int i = 0; i < 6; i++) close_fd(&e->stdio[i]);
  e->pid = pid;
  reply_launched(seq, 0, pid, "");
}

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

/* The pid in a pid file (runc writes it without a newline); 0 when there is none. */
static pid_t read_pid_file(const char *path) {
  char text[32];
  if (read_small(path, text, sizeof text) != 0) return 0;
  long pid = strtol(text, NULL, 10);
  return pid > 0 && pid < 1L << 30 ? (pid_t)pid : 0;
}

/* The pty master runc sends on the console socket (SCM_RIGHTS); -1 with `error`. */
static int receive_master(struct held *e, char *error) {
  int conn = accept4(e->listener, NULL, NULL, SOCK_CLOEXEC);
  if (conn < 0) {
    snprintf(error, ERROR_MAX, "the program made no connection to the console socket %s", e->console);
    return -1;
  }
  char byte[256];
  int master = -1, got = 0, lost = 0;
  /* runc sends one descriptor; anything more is closed. */
  unix_recv_fds(conn, byte, sizeof byte, MSG_DONTWAIT, &master, 1, &got, &lost);
  close(conn);
  if (master < 0) snprintf(error, ERROR_MAX, "no terminal came on the console socket %s", e->console);
  return master;
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

static void program_exited(struct held *e, int status) {
  e->program = 0;
  for (int i = 0; i < 6; i++) close_fd(&e->stdio[i]);
  char error[ERROR_MAX] = "";
  /* The program has exited: its end of the pipe is closed, so this does not block. */
  int err = exec_report_wait(e->report);
  e->report = -1;
  if (err != 0) snprintf(error, sizeof error, "cannot run %s: %s", e->argv0, strerror(err));
  pid_t pid = 0;
  int ok = error[0] == '\0' && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (ok && e->pid_file[0] != '\0' && (pid = read_pid_file(e->pid_file)) == 0)
    snprintf(error, sizeof error, "%s exited 0 without a pid in %s", e->argv0, e->pid_file);
  int master = pid > 0 && e->listener >= 0 ? receive_master(e, error) : -1;
  if (master >= 0) terminal_watch(&e->term, master);
  if (e->listener >= 0) {
    close_fd(&e->listener);
    unlink(e->console);
  }
  if (error[0] != '\0' || pid == 0) {
    /* Nothing to keep: a one-shot program, a failure, or the keeper's part failed. */
    reply_launched(e->seq, error[0] != '\0' ? -1 : status, 0, error);
    forget(e);
    return;
  }
  int reaped = -1;
  for (int i = 0; i < RECENT_MAX && pid > 0; i++) {
    if (h.recent[i].pid != pid) continue;
    h.recent[i].pid = 0;
    /* A process that runs under this pid now is the pid file's: the reap was of an older one. */
    if (!is_child(pid)) reaped = i;
  }
  if (reaped < 0 && pid > 0 && !is_child(pid)) {
    snprintf(error, sizeof error, "pid %d in %s is not a process the keeper can reap", (int)pid, e->pid_file);
    reply_launched(e->seq, -1, 0, error);
    forget(e);
    return;
  }
  e->pid = pid;
  reply_launched(e->seq, status, pid, "");
  if (e->kill_deadline > 0) {
    /* Released while it launched: what the launch left is nobody's (held_release). */
    if (reaped >= 0) forget(e);
    else kill(pid, SIGKILL);
    return;
  }
  /* It exited before the program did, and was reaped then: that is the key's exit. */
  if (reaped >= 0) kept_exited(e, h.recent[reaped].status, &h.recent[reaped].when);
}

int held_runs(int pid) {
  for (const struct held *e = h.list; e != NULL; e = e->next)
    if (e->pid == pid && !e->exited && !e->dead && e->kill_deadline == 0) return 1;
  return 0;
}

int held_exit_unacked(const char *id, const char *exec_id) {
  size_t id_len = strlen(id);
  for (const struct held *e = h.list; e != NULL; e = e->next) {
    if (!e->exited || e->acked || e->kill_deadline != 0 || strncmp(e->key, id, id_len) != 0) continue;
    /* Keys as the serving process names them: the task id for its init, "<id>/<exec id>" for an exec. */
    const char *rest = e->key + id_len;
    if (*exec_id == '\0' ? *rest == '\0' : (*rest == '/' && strcmp(rest + 1, exec_id) == 0)) return 1;
  }
  return 0;
}

int held_reaped(int pid, int status) {
  struct timespec when;
  clock_gettime(CLOCK_REALTIME, &when);
  for (struct held *e = h.list; e != NULL; e = e->next) {
    if (e->program == pid) {
      program_exited(e, status);
      return 0;
    }
    if (e->pid == pid && !e->exited) {
      if (e->kill_deadline > 0) forget(e);
      else kept_exited(e, status, &when);
      return 1;
    }
  }
  h.recent[h.recent_next].pid = pid;
  h.recent[h.recent_next].status = status;
  h.recent[h.recent_next].when = when;
  h.recent_next = (h.recent_next + 1) % RECENT_MAX;
  return 0;
}

void held_greet(void) {
  const char *fields[CONTROL_FIELDS_MAX];
  char pids[CONTROL_FIELDS_MAX / 2][16];
  int n = 0;
  for (struct held *e = h.list; e != NULL && n < CONTROL_FIELDS_MAX; e = e->next) {
    if (e->pid == 0 || e->exited || e->kill_deadline > 0) continue;
    snprintf(pids[n / 2], sizeof pids[n / 2], "%d", (int)e->pid);
    fields[n] = e->key;
    fields[n + 1] = pids[n / 2];
    n += 2;
  }
  control_send('H', fields, n);
  for (struct held *e = h.list; e != NULL; e = e->next)
    if (e->exit_told && !e->acked) tell_exit(e);
}

void held_close_stdin(const char *key) {
  struct held *e = find(key);
  if (e == NULL) return;
  for (int i = 0; i < e->keep_open_count; i++) close_fd(&e->keep_open[i]);
  e->keep_open_count = 0;
}

void held_resize(const char *seq, const char *key, const char *width, const char *height) {
  struct held *e = find(key);
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
  struct held *e = find(key);
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
    } else if (epoll_ctl(h.epfd, EPOLL_CTL_ADD, e->start.fd, &ev) != 0) {
      e->start.err = errno;
      start_settled(e, EXEC_FIFO_FAILED);
    }
  }
}

void held_ack(const char *key) {
  struct held *e = find(key);
  if (e != NULL) e->acked = 1;
}

void held_release(const char *key) {
  struct held *e = find(key);
  if (e == NULL) return;
  /*
   * A program kept itself (no pid file: a log URI's logger) that still runs is ended as
   * containerd's runc shim ends its logger at Delete (binaryIO.Close): SIGTERM, then SIGKILL
   * after 12 s. It is the keeper's unreaped child, so its pid is its own still; until its reap
   * it counts as held (the keeper stays to end it) but answers to no key.
   */
  if (e->pid_file[0] == '\0' && e->pid > 0 && !e->exited) {
    close_all(e);
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
    if (e->program == 0) close_all(e);
    if (e->pid > 0) kill(e->pid, SIGKILL);
    e->kill_deadline = LONG_MAX;
    return;
  }
  forget(e);
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
  for (struct held *e = h.list; e != NULL; e = e->next) {
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
  for (struct held *e = h.list; e != NULL; e = e->next) {
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
