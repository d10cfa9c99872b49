/*
 * Starting a pod's keeper from `start`: under the pod lock, bind the pod socket and run
 * this binary's `keep` with the listener as fd 3 and a readiness pipe as fd 4, then wait
 * for its byte (docs/keeper-protocol.md, `start`).
 */
#define _GNU_SOURCE
#include "keeper-start.h"
#include "unix-socket.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* The keeper's first process: stdio, fds 3 and 4, then exec; it forks again and leaves. */
static void exec_keeper(char *const argv[], int listener, int ready, const char *log_path) {
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  /* containerd holds the log FIFO open for reading; non-blocking, so the keeper never stalls on it. */
  int log = open(log_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  /* 3 and 4 may be taken by the ones being moved: lift them above first. */
  int l = fcntl(listener, F_DUPFD_CLOEXEC, 10), r = fcntl(ready, F_DUPFD_CLOEXEC, 10);
  dup2(null, 0);
  dup2(null, 1);
  dup2(log >= 0 ? log : null, 2);
  dup2(l, 3);
  dup2(r, 4);
  execv("/proc/self/exe", argv);
  _exit(127);
}

static int spawn(const char *pod_socket, char *const argv[], const char *log_path, char *why, size_t why_size) {
  int listener = unix_listen(pod_socket, SOCK_CLOEXEC, 128);
  if (listener < 0) {
    snprintf(why, why_size, "cannot listen on the pod socket %s: %s", pod_socket, strerror(errno));
    return -1;
  }
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) {
    snprintf(why, why_size, "cannot make a pipe: %s", strerror(errno));
    close(listener);
    return -1;
  }
  pid_t pid = fork();
  if (pid == 0) exec_keeper(argv, listener, ready[1], log_path);
  close(ready[1]);
  close(listener);
  char reply[512];
  size_t got = 0;
  ssize_t n = 0;
  while (got < sizeof reply - 1 && (n = read(ready[0], reply + got, sizeof reply - 1 - got)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    got += (size_t)n;
    if (reply[0] == '\0') break;
  }
  close(ready[0]);
  if (pid > 0) waitpid(pid, NULL, 0);
  if (pid < 0) snprintf(why, why_size, "cannot fork the keeper: %s", strerror(errno));
  else if (got > 0 && reply[0] == '\0') return 0;
  else if (got > 0) snprintf(why, why_size, "%.*s", (int)strcspn(reply, "\n"), reply);
  else snprintf(why, why_size, "the pod keeper died during start-up (see containerd's log)");
  unlink(pod_socket);
  return -1;
}

int keeper_ensure(const char *pod_socket, const char *pod_lock, char *const argv[], const char *log_path, char *why,
                  size_t why_size) {
  if (unix_answers(pod_socket)) return 0;
  int lock = open(pod_lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock < 0 || flock(lock, LOCK_EX) != 0) {
    snprintf(why, why_size, "cannot lock %s: %s", pod_lock, strerror(errno));
    if (lock >= 0) close(lock);
    return -1;
  }
  /* Two starts of one pod at once: one starts the keeper, the other finds it. */
  int status = unix_answers(pod_socket) ? 0 : spawn(pod_socket, argv, log_path, why, why_size);
  close(lock);
  return status;
}
