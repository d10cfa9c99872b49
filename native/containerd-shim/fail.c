/* fail.h: the shim's one line on the way out. */
#define _GNU_SOURCE
#include "fail.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "task-layout.h"

_Noreturn void die(const char *what, const char *detail) {
  fprintf(stderr, "containerd-shim-skiff-v2: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(1);
}

void path_or_die(int rc, const char *what) {
  if (rc != 0) die("a path is longer than PATH_MAX; give containerd a shorter state dir", what);
}

_Noreturn void die_logged(const char *bundle, const char *line) {
  char log_path[PATH_MAX];
  if (bundle != NULL && layout_path(log_path, sizeof log_path, "%s/log", bundle) == 0) {
    int log = open(log_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (log >= 0) {
      dprintf(log, "containerd-shim-skiff-v2: %s\n", line);
      close(log);
    }
  }
  die(line, NULL);
}

int fault_set(struct fault *why, const char *detail, const char *format, ...) {
  va_list ap;
  why->detail = detail;
  why->logged = 0;
  va_start(ap, format);
  vsnprintf(why->what, sizeof why->what, format, ap);
  va_end(ap);
  return -1;
}

const char *fault_hold(struct fault *why, const char *detail) {
  snprintf(why->held, sizeof why->held, "%s", detail);
  return why->held;
}

int fault_logged(struct fault *why, const char *line) {
  fault_set(why, NULL, "%s", line);
  why->logged = 1;
  return -1;
}

_Noreturn void die_of(const struct fault *why) {
  die(why->what, why->detail);
}

_Noreturn void die_of_in(const char *bundle, const struct fault *why) {
  if (why->logged) die_logged(bundle, why->what);
  die_of(why);
}
