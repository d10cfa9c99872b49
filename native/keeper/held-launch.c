/*
 * `L` (docs/keeper-protocol.md, "The control connection"): runs a program as the keeper's child
 * with its descriptors in their roles, and keeps what it leaves behind: the program itself, or
 * the process its pid file names (the keeper is a subreaper, so that process is its child too)
 * with the terminal runc sent on the console socket. `l` answers.
 */
#define _GNU_SOURCE
#include "held.h"
#include "held-entry.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "control.h"
#include "exec-report.h"
#include "unix-socket.h"

static void reply_launched(const char *seq, int status, pid_t pid, const char *error) {
  char status_text[16], pid_text[16];
  snprintf(status_text, sizeof status_text, "%d", status);
  snprintf(pid_text, sizeof pid_text, "%d", (int)pid);
  const char *fields[] = {seq, status_text, pid_text, error};
  control_send('l', fields, 4);
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
  if (held_find(fields[1]) != NULL) {
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
  terminal_init(&e->term, held_epfd(), e);
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
  held_add(e);
  if (error[0] != '\0') {
    held_forget(e);
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
    held_forget(e);
    reply_launched(seq, -1, 0, error);
    return;
  }
  /* The program has its copies: a reader of its output meets EOF once the program's side closes. */
  for (int i = 0; i < 6; i++) close_fd(&e->stdio[i]);
  e->pid = pid;
  reply_launched(seq, 0, pid, "");
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

void held_program_exited(struct held *e, int status) {
  e->program = 0;
  for (int i = 0; i < 6; i++) close_fd(&e->stdio[i]);
  char error[ERROR_MAX] = "";
  /* The program has exited: its end of the pipe is closed, so this does not block. */
  int err = exec_report_wait(e->report);
  e->report = -1;
  if (err != 0) snprintf(error, sizeof error, "cannot run %s: %s", e->argv0, strerror(err));
  pid_t pid = 0;
  int ok = error[0] == '\0' && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (ok && e->pid_file[0] != '\0' && (pid = held_read_pid_file(e->pid_file)) == 0)
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
    held_forget(e);
    return;
  }
  int reaped_status = 0;
  struct timespec when;
  int reaped = held_reap_claim(pid, &reaped_status, &when);
  if (reaped < 0) {
    snprintf(error, sizeof error, "pid %d in %s is not a process the keeper can reap", (int)pid, e->pid_file);
    reply_launched(e->seq, -1, 0, error);
    held_forget(e);
    return;
  }
  e->pid = pid;
  reply_launched(e->seq, status, pid, "");
  if (e->kill_deadline > 0) {
    /* Released while it launched: what the launch left is nobody's (held_release). */
    if (reaped > 0) held_forget(e);
    else kill(pid, SIGKILL);
    return;
  }
  /* It exited before the program did, and was reaped then: that is the key's exit. */
  if (reaped > 0) held_kept_exited(e, reaped_status, &when);
}
