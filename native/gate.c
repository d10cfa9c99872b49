/*
 * skiff-gate: what a native process runs before its program.
 *
 *   skiff-gate [-w] [-t] [-u UID -g GID] -- FILE ARGV0 [ARG...]
 *
 *   -w   wait for one byte on fd 3, then close it. The shim writes the byte at Start:
 *        until then the task's init exists, CREATED, with its final pid (the gate
 *        execs the program in place, so the pid never changes; runc's exec.fifo).
 *   -t   make stdin (a pseudo-terminal's slave) the controlling terminal.
 *   -u/-g  become UID/GID (no supplementary groups) before the exec.
 *
 * Then execvp(FILE) with argv ARGV0 ARG... (argv[0] stays as the spec wrote it) and the
 * environment it was given. If that fails it says why
 * on stderr and exits 127, as a shell does. A small static binary: its own exec costs
 * a fraction of a shell's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "skiff-gate: %s%s: %s\n", what, detail, strerror(errno));
  _exit(127);
}

int main(int argc, char **argv) {
  int wait_gate = 0, terminal = 0, i = 1;
  long uid = -1, gid = -1;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if (strcmp(argv[i], "-w") == 0) wait_gate = 1;
    else if (strcmp(argv[i], "-t") == 0) terminal = 1;
    else if (strcmp(argv[i], "-u") == 0 && i + 1 < argc) uid = strtol(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "-g") == 0 && i + 1 < argc) gid = strtol(argv[++i], NULL, 10);
    else {
      fprintf(stderr, "skiff-gate: unknown option %s\n", argv[i]);
      return 127;
    }
  }
  if (i + 2 >= argc) {
    fprintf(stderr, "usage: skiff-gate [-w] [-t] [-u UID -g GID] -- FILE ARGV0 [ARG...]\n");
    return 127;
  }
  const char *file = argv[i + 1];
  char **program = argv + i + 2;

  if (wait_gate) {
    char byte;
    ssize_t n;
    do n = read(3, &byte, 1); while (n < 0 && errno == EINTR);
    /* End-of-file without the byte: the shim let the task go without starting it. */
    if (n != 1) _exit(0);
    close(3);
  }
  if (terminal && ioctl(0, TIOCSCTTY, 0) != 0) fail("cannot make stdin the controlling terminal", "");
  if (gid >= 0) {
    if (setgroups(0, NULL) != 0) fail("setgroups", "");
    if (setgid((gid_t)gid) != 0) fail("setgid", "");
  }
  if (uid >= 0 && setuid((uid_t)uid) != 0) fail("setuid", "");
  execvp(file, program);
  fail("exec ", file);
  return 127;
}
