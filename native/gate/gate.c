/*
 * skiff-gate: what a native process runs before its program.
 *
 *   skiff-gate [-w] [-t] [-u UID -g GID] -- FILE ARGV0 [ARG...]
 *
 *   -w   wait for one byte on fd 3, then close it. The shim writes the byte at Start:
 *        until then the task's init exists, CREATED, with its final pid (the gate
 *        execs the program in place, so the pid never changes; runc's exec.fifo).
 *        End-of-file instead of the byte: the shim let the task go unstarted, exit 0.
 *   -t   make stdin (a pseudo-terminal's slave) the controlling terminal.
 *   -u/-g  become UID/GID (no supplementary groups) before the exec.
 *
 * Then execve(FILE) with argv ARGV0 ARG... (argv[0] stays as the spec wrote it) and the
 * environment it was given. FILE is a path: the shim resolves the program at Create, the
 * way execvp would. A file without a #! line runs under /bin/sh, as execvp does. If the
 * exec fails the gate says why on stderr and exits 127, as a shell does.
 *
 * It is a small static program without a C library (gate-sys.h): its own exec costs
 * about a tenth of a shell's.
 */
#include <asm/ioctls.h>
#include <linux/errno.h>
#include "gate-sys.h"

static int same(const char *a, const char *b) {
  while (*a != '\0' && *a == *b) a++, b++;
  return *a == *b;
}

static long length(const char *s) {
  long n = 0;
  while (s[n] != '\0') n++;
  return n;
}

/* A decimal id, or -1 when `s` is not one. */
static long parse_id(const char *s) {
  long value = 0;
  if (*s == '\0') return -1;
  for (; *s != '\0'; s++) {
    if (*s < '0' || *s > '9' || value > 0x7fffffffL / 10) return -1;
    value = value * 10 + (*s - '0');
  }
  return value;
}

static void say(const char *text) {
  sys_write(2, text, length(text));
}

static const char *reason(long err) {
  switch (err) {
    case ENOENT: return "No such file or directory";
    case EACCES: return "Permission denied";
    case EPERM: return "Operation not permitted";
    case ENOEXEC: return "Exec format error";
    case ENOTDIR: return "Not a directory";
    case EISDIR: return "Is a directory";
    case ENOTTY: return "Inappropriate ioctl for device";
    case ELOOP: return "Too many levels of symbolic links";
    case ENAMETOOLONG: return "File name too long";
    case E2BIG: return "Argument list too long";
    case ENOMEM: return "Cannot allocate memory";
    case ETXTBSY: return "Text file busy";
    case EINVAL: return "Invalid argument";
    default: return "error";
  }
}

/* "skiff-gate: WHAT DETAIL: REASON", then exit 127. */
static __attribute__((noreturn)) void fail(const char *what, const char *detail, long err) {
  say("skiff-gate: ");
  say(what);
  say(detail);
  say(": ");
  say(reason(err));
  say("\n");
  sys_exit(127);
}

/* execve, and for a file without a #! line (ENOEXEC) /bin/sh FILE ARG..., as execvp does. */
static long exec_program(const char *file, char **program, char **envp) {
  long err = sys_execve(file, program, envp);
  if (err != -ENOEXEC) return err;
  long count = 0;
  while (program[count] != 0) count++;
  char *script[count + 2];
  script[0] = "/bin/sh";
  script[1] = (char *)file;
  for (long i = 1; i <= count; i++) script[i + 1] = program[i];
  sys_execve(script[0], script, envp);
  return err;
}

static int gate_main(int argc, char **argv, char **envp) {
  int wait_gate = 0, terminal = 0, i = 1;
  long uid = -1, gid = -1;
  for (; i < argc && !same(argv[i], "--"); i++) {
    if (same(argv[i], "-w")) wait_gate = 1;
    else if (same(argv[i], "-t")) terminal = 1;
    else if (same(argv[i], "-u") && i + 1 < argc && (uid = parse_id(argv[i + 1])) >= 0) i++;
    else if (same(argv[i], "-g") && i + 1 < argc && (gid = parse_id(argv[i + 1])) >= 0) i++;
    else {
      say("skiff-gate: bad option ");
      say(argv[i]);
      say("\n");
      return 127;
    }
  }
  if (i + 2 >= argc) {
    say("usage: skiff-gate [-w] [-t] [-u UID -g GID] -- FILE ARGV0 [ARG...]\n");
    return 127;
  }
  const char *file = argv[i + 1];
  char **program = argv + i + 2;

  if (wait_gate) {
    char byte;
    long n;
    do n = sys_read(3, &byte, 1); while (n == -EINTR);
    if (n != 1) return 0;
    sys_close(3);
  }
  long err;
  if (terminal && (err = sys_ioctl(0, TIOCSCTTY, 0)) < 0) fail("cannot make stdin the controlling terminal", "", -err);
  if (gid >= 0) {
    if ((err = sys_setgroups_none()) < 0) fail("setgroups", "", -err);
    if ((err = sys_setgid(gid)) < 0) fail("setgid", "", -err);
  }
  if (uid >= 0 && (err = sys_setuid(uid)) < 0) fail("setuid", "", -err);
  fail("exec ", file, -exec_program(file, program, envp));
}
