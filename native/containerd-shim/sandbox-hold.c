/* sandbox_hold: see sandbox-hold.h. It is what the pause container is to a runc pod. */
#define _GNU_SOURCE
#include "sandbox-hold.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NAME "skiff-sandbox"

/* The parent says the line (sandbox.c) and kills this process. */
_Noreturn static void report_failed(int report, const char *what) {
  struct sandbox_report r = {.err = errno != 0 ? errno : EIO};
  snprintf(r.what, sizeof r.what, "%s", what);
  if (write(report, &r, sizeof r) < 0) _exit(1);
  _exit(1);
}

/* /proc/<pid>/cmdline shows argv's bytes: one contiguous area (the kernel's layout), which becomes
 * NAME and NULs. The flags pointed into it; the holder needs none of them any more. */
static void rename_argv(int argc, char **argv) {
  char *start = argv[0], *end = argv[argc - 1] + strlen(argv[argc - 1]);
  for (int i = 1; i < argc; i++)
    if (argv[i] != argv[i - 1] + strlen(argv[i - 1]) + 1) return; /* not the kernel's layout: leave it */
  if ((size_t)(end - start) < sizeof NAME - 1) return;
  memset(start, 0, (size_t)(end - start));
  memcpy(start, NAME, sizeof NAME - 1);
}

/* Only stderr, which the keeper makes the sandbox's log, is kept of what was inherited: a descriptor
 * held for the pod's life would keep the keeper's pipes or a socket open. */
static int keep_only_stderr(int report) {
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0) return -1;
  if (null > 2 && close(null) != 0) return -1;
#ifdef SYS_close_range
  if ((report <= 3 || syscall(SYS_close_range, 3, report - 1, 0) == 0) &&
      syscall(SYS_close_range, report + 1, ~0U, 0) == 0)
    return 0;
#endif
  long max = sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > 65536) max = 65536;
  for (int fd = 3; fd < max; fd++)
    if (fd != report) close(fd);
  return 0;
}

/* Every child that has exited; none is left a zombie in the pod's PID namespace. */
static void reap_all(void) {
  int status;
  while (waitpid(-1, &status, WNOHANG) > 0) {
  }
}

_Noreturn void sandbox_hold(int report, int argc, char **argv) {
  errno = 0;
  if (prctl(PR_SET_NAME, NAME, 0, 0, 0) != 0) report_failed(report, "prctl(PR_SET_NAME)");
  rename_argv(argc, argv);
  /* For the pod's life: the launcher's directory is not to be kept busy (an unmount, a removal). */
  if (chdir("/") != 0) report_failed(report, "chdir /");
  if (keep_only_stderr(report) != 0) report_failed(report, "/dev/null as stdin and stdout");
  /* Default actions, whatever was inherited: an ignored SIGCHLD would have the kernel reap, unseen. */
  if (signal(SIGCHLD, SIG_DFL) == SIG_ERR || signal(SIGTERM, SIG_DFL) == SIG_ERR || signal(SIGINT, SIG_DFL) == SIG_ERR)
    report_failed(report, "signal");
  sigset_t all;
  if (sigfillset(&all) != 0) report_failed(report, "sigfillset");
  struct sandbox_report ready = {.err = 0};
  /* A failed write leaves the parent an end-of-file: it kills this process. Once the word is
   * written, a failed close is no matter. */
  if (write(report, &ready, sizeof ready) != (ssize_t)sizeof ready) _exit(1);
  (void)close(report);
  /* Every signal is blocked: each is taken here, one at a time; those not named are dropped. */
  for (;;) {
    siginfo_t info;
    int sig = sigwaitinfo(&all, &info);
    if (sig < 0) {
      if (errno == EINTR) continue;
      fprintf(stderr, "containerd-shim-skiff-v2 sandbox: sigwaitinfo: %s\n", strerror(errno));
      _exit(1);
    }
    if (sig == SIGTERM || sig == SIGINT) exit(0);
    if (sig == SIGCHLD) reap_all();
  }
}
