/*
 * `sandbox`: the process that holds a pod's namespaces when containerd's Sandbox API is used, in
 * place of a pause container (docs/sandbox-api.md §3: containerd joins each container to
 * /proc/<pid>/ns/{net,ipc,uts,pid} of the pid the sandbox reports). The pod keeper launches it as it
 * launches `runc create`: it waits for the exit 0, then reads the pid file and reaps that pid.
 *
 * This process enters or makes the namespaces and writes the sysctls, then forks the holder
 * (sandbox-hold.c), which is in them all and, with --share-pid, pid 1 of the new PID namespace
 * (unshare(CLONE_NEWPID) moves only the children that follow). The sysctls are written here, not by
 * the holder: /proc/sys/net and the IPC sysctls are those of the writer's namespaces, which the
 * holder shares (a PID namespace has none of its own), and a failure here has no child to end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox-flags.h"
#include "sandbox-hold.h"
#include "task-layout.h"
#include "verbs.h"

static pid_t holder;

/* One line, `<what>: <strerror>`, with control characters in paths shown as '?'; the holder, if any,
 * is killed and reaped, so that no pid is left behind that the keeper never learns of. */
__attribute__((noreturn, format(printf, 2, 3))) static void fail(int err, const char *format, ...) {
  char what[PATH_MAX + 512];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof what, format, args);
  va_end(args);
  for (char *c = what; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
  fprintf(stderr, "containerd-shim-skiff-v2 sandbox: %s: %s\n", what, strerror(err));
  if (holder > 0 && kill(holder, SIGKILL) == 0)
    while (waitpid(holder, NULL, 0) < 0 && errno == EINTR) {
    }
  exit(1);
}

/* 0-2 open, so that the report pipe is never one of them: the holder makes 0 and 1 /dev/null. */
static void stdio_open(void) {
  for (int fd = 0; fd < 3; fd++) {
    if (fcntl(fd, F_GETFD) >= 0) continue;
    int null = open("/dev/null", O_RDWR);
    if (null < 0) fail(errno, "open /dev/null");
    if (null != fd) fail(EBADF, "descriptor %d closed", fd);
  }
}

static void enter_netns(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(errno, "open netns %s", path);
  if (setns(fd, CLONE_NEWNET) != 0) fail(errno, "setns to the network namespace %s", path);
  if (close(fd) != 0) fail(errno, "close netns %s", path);
}

static void unshare_namespaces(const struct sandbox_flags *f) {
  int flags = (f->host_uts ? 0 : CLONE_NEWUTS) | (f->host_ipc ? 0 : CLONE_NEWIPC) | (f->share_pid ? CLONE_NEWPID : 0);
  if (flags == 0) return;
  if (unshare(flags) != 0)
    fail(errno, "unshare%s%s%s", flags & CLONE_NEWUTS ? " uts" : "", flags & CLONE_NEWIPC ? " ipc" : "",
         flags & CLONE_NEWPID ? " pid" : "");
}

/* One write: a sysctl read in parts is not the value written (the kernel's sysctl_writes_strict). */
static void write_sysctl(const struct sandbox_sysctl *s) {
  char path[PATH_MAX];
  int len = (int)s->key_len;
  if (sandbox_sysctl_path(s, path, sizeof path) != 0) fail(ENAMETOOLONG, "sysctl %.*s", len, s->key);
  int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) fail(errno, "sysctl %.*s: open %s", len, s->key, path);
  size_t n = strlen(s->value);
  ssize_t written = write(fd, s->value, n);
  if (written < 0) fail(errno, "sysctl %.*s=%s: write %s", len, s->key, s->value, path);
  if ((size_t)written != n) fail(EIO, "sysctl %.*s=%s: write %s took %zd bytes", len, s->key, s->value, path, written);
  if (close(fd) != 0) fail(errno, "sysctl %.*s: close %s", len, s->key, path);
}

/* The holder's word: ready, or the step that failed. Its end closed without a word: it died. */
static void await_holder(int report) {
  struct sandbox_report r;
  ssize_t n;
  do n = read(report, &r, sizeof r);
  while (n < 0 && errno == EINTR);
  if (n < 0) fail(errno, "read the holder's report");
  if (n != (ssize_t)sizeof r) fail(ECHILD, "the holder (pid %d) ended before it was ready", (int)holder);
  r.what[sizeof r.what - 1] = '\0';
  if (r.err != 0) fail(r.err, "the holder (pid %d): %s", (int)holder, r.what);
  if (close(report) != 0) fail(errno, "close the holder's report");
}

/* The keeper reads the file once this process exits 0: whole or absent, never half-written. */
static void write_pid_file(const char *path) {
  char tmp[PATH_MAX], text[16];
  if (layout_path(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid()) != 0) fail(ENAMETOOLONG, "pid file %s", path);
  int n = snprintf(text, sizeof text, "%d", (int)holder);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) fail(errno, "create %s", tmp);
  errno = 0;
  if (write(fd, text, (size_t)n) != n || close(fd) != 0) {
    int err = errno != 0 ? errno : EIO;
    unlink(tmp);
    fail(err, "write %s", tmp);
  }
  if (rename(tmp, path) != 0) {
    int err = errno;
    unlink(tmp);
    fail(err, "rename %s to %s", tmp, path);
  }
}

int do_sandbox(int argc, char **argv) {
  struct sandbox_flags f;
  char why[512];
  if (parse_sandbox_flags(argc, argv, &f, why, sizeof why) != 0) {
    fprintf(stderr, "containerd-shim-skiff-v2 sandbox: %s\n", why);
    return 2;
  }
  stdio_open();
  if (f.netns != NULL) enter_netns(f.netns);
  unshare_namespaces(&f);
  if (f.hostname != NULL && sethostname(f.hostname, strlen(f.hostname)) != 0)
    fail(errno, "sethostname %s", f.hostname);
  for (int i = 0; i < f.sysctl_count; i++) write_sysctl(&f.sysctls[i]);
  /* Blocked before the fork, so the holder has no moment in which a signal kills it unseen. */
  sigset_t all, before;
  int report[2];
  if (sigfillset(&all) != 0 || sigprocmask(SIG_SETMASK, &all, &before) != 0) fail(errno, "block signals");
  if (pipe2(report, O_CLOEXEC) != 0) fail(errno, "pipe");
  holder = fork();
  if (holder < 0) fail(errno, "fork the holder");
  /* The read end goes with the rest the holder inherited (sandbox-hold.c keeps 0-2 and its report). */
  if (holder == 0) sandbox_hold(report[1], argc, argv);
  if (sigprocmask(SIG_SETMASK, &before, NULL) != 0) fail(errno, "unblock signals");
  if (close(report[1]) != 0) fail(errno, "close the holder's end of its report");
  await_holder(report[0]);
  write_pid_file(f.pid_file);
  return 0;
}
