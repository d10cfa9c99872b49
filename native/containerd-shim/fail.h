/* How the shim binary ends when it cannot go on: one line on stderr, which containerd puts in its error. */
#ifndef SKIFF_SHIM_FAIL_H
#define SKIFF_SHIM_FAIL_H

#include <limits.h>

__attribute__((noreturn)) void die(const char *what, const char *detail);

/* A path from layout_path & co., or one line naming what was too long. */
void path_or_die(int rc, const char *what);

/* Says `line` where containerd's log shows it (the bundle's `log` FIFO, which containerd copies to its
 * own output) and where its client does (this program's output, which containerd puts in the error),
 * then exits. */
__attribute__((noreturn)) void die_logged(const char *bundle, const char *line);

/*
 * Why a lookup has no sure answer, as the one line a caller that cannot go on ends with (die_of):
 * `what`, then ": " and `detail` unless it is NULL. A caller that can go on drops it.
 */
struct fault {
  char what[3 * PATH_MAX + 320];
  const char *detail; /* NULL, or a string that outlives the fault: the environment's, or `held` */
  char held[PATH_MAX];
  int logged; /* said in the bundle's log too (die_logged): a line about the install, not the call */
};

/* Sets *why; -1, what a lookup returns with it. */
__attribute__((format(printf, 3, 4))) int fault_set(struct fault *why, const char *detail, const char *format, ...);

/* A copy of `detail` kept in the fault, for one that would not outlive it (a lookup's own path). */
const char *fault_hold(struct fault *why, const char *detail);

/* Sets *why to `line`, which goes to the bundle's log too; -1. */
int fault_logged(struct fault *why, const char *line);

__attribute__((noreturn)) void die_of(const struct fault *why);

/* die_of, and a logged fault (fault_logged) in `bundle`'s log as die_logged says it. */
__attribute__((noreturn)) void die_of_in(const char *bundle, const struct fault *why);

#endif
