/*
 * Reaching the serving process, and starting it when none answers (docs/keeper-protocol.md,
 * "Starting the serving process"). A dead server's socket file stays behind and refuses
 * connections; the group lock makes the keepers of a group start one server between them.
 */
#define _GNU_SOURCE
#include "serving.h"
#include "unix-socket.h"
#include "serving-argv.h"
#include "exec-report.h"
#include "say.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* How long a connect waits for room in a listening server's backlog before it gives up. */
#define BACKLOG_WAIT_MS 2000
#define BACKLOG_STEP_MS 2

/*
 * A connected, non-blocking descriptor, or -1 with errno (ECONNREFUSED, ENOENT: nobody serves).
 * EAGAIN is a server whose backlog is full (every keeper of a namespace reconnects at once
 * after a crash, before Node accepts): it is there, so the connect waits for room rather than
 * report it gone, which would start a second server on the same socket path.
 */
static int try_connect(const char *path) {
  for (int waited = 0;; waited += BACKLOG_STEP_MS) {
    int fd = unix_connect(path, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0 || errno != EAGAIN || waited >= BACKLOG_WAIT_MS) return fd;
    const struct timespec step = {0, BACKLOG_STEP_MS * 1000000L};
    nanosleep(&step, NULL);
  }
}

/*
 * A child that is not the keeper's: the keeper is a subreaper, so a double fork would leave
 * the grandchild to it again. clone(CLONE_PARENT) makes the serving process a sibling, the
 * child of the keeper's own parent (init, or the nearest subreaper), as `start` makes the keeper.
 */
static pid_t fork_as_sibling(void) {
  pid_t pid = (pid_t)syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
  if (pid < 0 && errno == EINVAL) pid = fork(); /* the keeper is a namespace's init: no parent to give */
  return pid;
}

_Noreturn static void exec_server(const struct keeper_config *c, int listener, int report) {
  setsid();
  if (chdir("/") != 0) _exit(127);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  for (int sig = 1; sig < NSIG; sig++) signal(sig, SIG_DFL);
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  dup2(null, 0);
  dup2(null, 1);
  dup2(listener, 3); /* dup2 clears close-on-exec on 3 */
  /* As `start` runs it (native/containerd-shim/start.c), --max-semi-space-size included. */
  const struct serving_command command = {
      .node = c->node,
      .script = c->script,
      .namespace = c->namespace,
      .address = c->address,
      .ttrpc_address = c->ttrpc_address,
      .state_dir = c->state_dir,
      .socket = c->group_socket,
      .debug = c->debug,
  };
  serving_exec(&command, report);
}

/* Binds the group socket and starts Node on it; 0, or -1 with `why` filled. */
static int start_server(const struct keeper_config *c, char *why, size_t why_size) {
  /* Room for every keeper of a namespace reconnecting at once, until Node listens with its own backlog. */
  int listener = unix_listen(c->group_socket, SOCK_CLOEXEC, 1024);
  if (listener < 0) {
    snprintf(why, why_size, "cannot listen on the group socket %s: %s", c->group_socket, strerror(errno));
    return -1;
  }
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    snprintf(why, why_size, "cannot make a pipe: %s", strerror(errno));
    close(listener);
    return -1;
  }
  pid_t pid = fork_as_sibling();
  if (pid == 0) exec_server(c, listener, report[1]);
  close(report[1]);
  /* The keeper keeps no copy of the listener: once Node dies, connecting must fail. */
  close(listener);
  if (pid < 0) {
    snprintf(why, why_size, "cannot fork the serving process: %s", strerror(errno));
    close(report[0]);
    unlink(c->group_socket);
    return -1;
  }
  int err = exec_report_wait(report[0]);
  if (err != 0) {
    serving_exec_error(why, why_size, c->node, err);
    unlink(c->group_socket);
    return -1;
  }
  /* containerd's log says so: on a node with the unit (docs/node-daemon.md) it means the unit is stopped or absent. */
  keeper_say("no serving process answered on %s: started one (pid %d)", c->group_socket, (int)pid);
  return 0;
}

int serving_connect(const struct keeper_config *c, char *why, size_t why_size) {
  int fd = try_connect(c->group_socket);
  if (fd >= 0) return fd;
  if (errno != ECONNREFUSED && errno != ENOENT) {
    snprintf(why, why_size, "cannot connect to the serving process at %s: %s", c->group_socket, strerror(errno));
    return -1;
  }
  int lock = open(c->group_lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock < 0 || flock(lock, LOCK_EX) != 0) {
    snprintf(why, why_size, "cannot lock %s: %s", c->group_lock, strerror(errno));
    if (lock >= 0) close(lock);
    return -1;
  }
  /* Another keeper of the group may have started one while this one waited for the lock. */
  fd = try_connect(c->group_socket);
  if (fd < 0 && errno != ECONNREFUSED && errno != ENOENT)
    snprintf(why, why_size, "cannot connect to the serving process at %s: %s", c->group_socket, strerror(errno));
  else if (fd < 0 && start_server(c, why, why_size) == 0) {
    fd = try_connect(c->group_socket);
    if (fd < 0)
      snprintf(why, why_size, "cannot connect to the serving process just started at %s: %s", c->group_socket,
               strerror(errno));
  }
  close(lock);
  return fd;
}
