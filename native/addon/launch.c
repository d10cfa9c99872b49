/*
 * spawnNoWait's child: a process that sets itself up and execs while the shim goes on.
 *
 * posix_spawn (spawn.c) keeps the calling thread in vfork until the child has exec'd,
 * ~0.17 ms of every Create and Exec in the shim's one JS thread (docs/performance.md).
 * The native runtime starts skiff-gate, whose file and working directory it has checked
 * already, so that wait would catch nothing. This child is a clone(CLONE_VM) without
 * CLONE_VFORK: it shares the shim's memory, like posix_spawn's, but the shim does not
 * wait for it. So it uses nothing but its own block (the strings, the pointer arrays and
 * its stack, copied before the clone) and raw system calls (raw-syscall.h): the C
 * library's state, errno included, is the shim's. It starts with every signal blocked,
 * sets every disposition to the default, then unblocks them just before the exec.
 * Until its setsid and its exec (microseconds after the launch returns, milliseconds on a
 * busy machine) the child is still in the shim's session, with the shim's memory and a
 * copy of each of its descriptors: NativeTaskHandle counts such a leader by its pid, none
 * of its memory, and stops it only once it has exec'd (skiff_launch_pending).
 *
 * The kernel clears the block's `live` word when the child has exec'd or exited
 * (CLONE_CHILD_CLEARTID, what frees a thread's stack in pthread_join), and each launch
 * unmaps the blocks of the children that have.
 */
#define _GNU_SOURCE
#include "launch.h"
#include "raw-syscall.h"
#include <asm/unistd.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#ifdef SKIFF_RAW_SYSCALL

/* The child's code reads no stack canary: that lives in the shim thread's storage too. */
#if defined(__has_attribute) && __has_attribute(no_stack_protector)
#define CHILD_CODE __attribute__((no_stack_protector))
#else
#define CHILD_CODE
#endif

/* Enough for the child's few frames: it calls no library and takes no signal on it. */
#define CHILD_STACK (32 * 1024)

/*
 * The least room an exec gives argv and envp, their pointers included, whatever the stack
 * limit (ARG_MAX in fs/exec.c, bprm_stack_limits). Below it no exec fails with E2BIG;
 * above, that error must be the caller's at the launch, not a child's exit 127 before
 * Start, so such a launch is left to posix_spawn.
 */
#define EXEC_ARGS_FLOOR (128 * 1024)

struct block {
  volatile pid_t live; /* non-zero until the kernel clears it (CLONE_CHILD_CLEARTID) */
  pid_t pid;           /* the child's, written by the parent after the clone */
  struct block *next;
  size_t size;
  const char *file, *cwd;
  long file_len;
  char **argv, **envp;
  int nfds, stage;
  int fds[MAX_CHILD_FDS];
};

static struct block *pending;

/* Unmaps the blocks of children that have exec'd or exited. */
static void reclaim(void) {
  for (struct block **at = &pending; *at != NULL;) {
    struct block *b = *at;
    if (__atomic_load_n(&b->live, __ATOMIC_ACQUIRE) == 0) {
      *at = b->next;
      munmap(b, b->size);
    } else {
      at = &b->next;
    }
  }
}

static size_t count_strings(char *const strings[], size_t *bytes) {
  size_t n = 0;
  for (; strings[n] != NULL; n++) *bytes += strlen(strings[n]) + 1;
  return n;
}

/* Copies `n` strings to *text and their pointers to `to` (NULL-terminated). */
static void copy_strings(char **to, char *const from[], size_t n, char **text) {
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(from[i]) + 1;
    memcpy(*text, from[i], len);
    to[i] = *text;
    *text += len;
  }
  to[n] = NULL;
}

/* Lengths are passed, not counted: the compiler would make a counting loop a strlen call. */
CHILD_CODE static void child_write(const char *s, long n) {
  raw_syscall4(__NR_write, 2, (long)s, n, 0);
}
#define CHILD_SAY(literal) child_write(literal, sizeof literal - 1)

/* "skiff: cannot start FILE: STEP failed (errno N)" on the child's stderr, then exit 127. */
#define CHILD_FAIL(b, step, err) child_fail(b, step, sizeof step - 1, err)
CHILD_CODE __attribute__((noreturn)) static void child_fail(const struct block *b, const char *step, long step_len, long err) {
  char digits[12];
  int i = sizeof digits - 1;
  digits[i] = '\0';
  do digits[--i] = (char)('0' + err % 10); while ((err /= 10) > 0 && i > 0);
  CHILD_SAY("skiff: cannot start ");
  child_write(b->file, b->file_len);
  CHILD_SAY(": ");
  child_write(step, step_len);
  CHILD_SAY(" failed (errno ");
  child_write(digits + i, (long)sizeof digits - 1 - i);
  CHILD_SAY(")\n");
  for (;;) raw_syscall4(__NR_exit_group, 127, 0, 0, 0);
}

CHILD_CODE static int child_main(void *arg) {
  struct block *b = arg;
  unsigned long no_handler[4] = {0, 0, 0, 0}; /* struct sigaction: SIG_DFL, no flags, empty mask */
  unsigned long no_signals = 0;
  long err;
  if ((err = raw_syscall4(__NR_setsid, 0, 0, 0, 0)) < 0) CHILD_FAIL(b, "setsid", -err);
  for (long sig = 1; sig <= 64; sig++) raw_syscall4(__NR_rt_sigaction, sig, (long)no_handler, 0, 8);
  /* Sources go to a range above every source and target first: none is overwritten unread. */
  for (int i = 0; i < b->nfds; i++) {
    if (b->fds[i] >= 0 && (err = raw_syscall4(__NR_dup3, b->fds[i], b->stage + i, 0, 0)) < 0) CHILD_FAIL(b, "dup", -err);
  }
  for (int i = 0; i < b->nfds; i++) {
    if (b->fds[i] >= 0) {
      err = raw_syscall4(__NR_dup3, b->stage + i, i, 0, 0);
    } else if ((err = raw_syscall4(__NR_openat, AT_FDCWD, (long)"/dev/null", O_RDWR, 0)) >= 0 && err != i) {
      long fd = err;
      err = raw_syscall4(__NR_dup3, fd, i, 0, 0);
      raw_syscall4(__NR_close, fd, 0, 0, 0);
    }
    if (err < 0) CHILD_FAIL(b, "placing a descriptor", -err);
  }
  for (int i = 0; i < b->nfds; i++) {
    if (b->fds[i] >= 0) raw_syscall4(__NR_close, b->stage + i, 0, 0, 0);
  }
  if ((err = raw_syscall4(__NR_chdir, (long)b->cwd, 0, 0, 0)) < 0) CHILD_FAIL(b, "chdir", -err);
  raw_syscall4(__NR_rt_sigprocmask, SIG_SETMASK, (long)&no_signals, 0, 8);
  err = raw_syscall4(__NR_execve, (long)b->file, (long)b->argv, (long)b->envp, 0);
  CHILD_FAIL(b, "exec", -err);
}

int skiff_launch_pending(pid_t pid) {
  for (struct block *b = pending; b != NULL; b = b->next) {
    if (b->pid == pid && __atomic_load_n(&b->live, __ATOMIC_ACQUIRE) != 0) return 1;
  }
  return 0;
}

int skiff_launches_held(void) {
  reclaim();
  int n = 0;
  for (struct block *b = pending; b != NULL; b = b->next) n++;
  return n;
}

int skiff_launch(const char *file, char *const argv[], char *const envp[], const char *cwd, const int fds[],
                 int nfds, pid_t *pid) {
  if (nfds < 0 || nfds > MAX_CHILD_FDS) return EINVAL;
  reclaim();
  size_t text = strlen(file) + 1 + strlen(cwd) + 1;
  size_t nargv = count_strings(argv, &text), nenvp = count_strings(envp, &text);
  if (text + (nargv + nenvp + 2) * sizeof(char *) >= EXEC_ARGS_FLOOR) return ENOSYS;
  size_t head = sizeof(struct block) + (nargv + 1 + nenvp + 1) * sizeof(char *);
  size_t page = 4096, size = (head + text + CHILD_STACK + page - 1) & ~(page - 1);
  /* fd -1: what mmap(2) asks of MAP_ANONYMOUS for portability; cppcheck's POSIX rule does not know the flag. */
  // cppcheck-suppress invalidFunctionArg
  struct block *b = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (b == MAP_FAILED) return errno;
  b->live = -1;
  b->size = size;
  b->argv = (char **)(b + 1);
  b->envp = b->argv + nargv + 1;
  char *at = (char *)(b->envp + nenvp + 1);
  copy_strings(b->argv, argv, nargv, &at);
  copy_strings(b->envp, envp, nenvp, &at);
  b->file = at;
  b->file_len = (long)strlen(file);
  at = stpcpy(at, file) + 1;
  b->cwd = at;
  stpcpy(at, cwd);
  b->nfds = nfds;
  b->stage = nfds;
  for (int i = 0; i < nfds; i++) {
    b->fds[i] = fds[i];
    if (fds[i] >= b->stage) b->stage = fds[i] + 1;
  }
  /* The stack grows down from the block's end, 16-byte aligned. */
  void *stack_top = (void *)(((uintptr_t)b + size) & ~(uintptr_t)15);

  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);
  int child = clone(child_main, stack_top, CLONE_VM | CLONE_CHILD_CLEARTID | SIGCHLD, b, NULL, NULL, &b->live);
  int err = errno;
  pthread_sigmask(SIG_SETMASK, &before, NULL);
  if (child < 0) {
    munmap(b, size);
    return err;
  }
  b->pid = child;
  b->next = pending;
  pending = b;
  *pid = child;
  return 0;
}

#else

int skiff_launch_pending(pid_t pid) {
  (void)pid;
  return 0;
}

int skiff_launches_held(void) {
  return 0;
}

int skiff_launch(const char *file, char *const argv[], char *const envp[], const char *cwd, const int fds[],
                 int nfds, pid_t *pid) {
  (void)file, (void)argv, (void)envp, (void)cwd, (void)fds, (void)nfds, (void)pid;
  return ENOSYS;
}

#endif
