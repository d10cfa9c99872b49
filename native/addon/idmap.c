/*
 * Idmapped mounts for a rootfs that containerd 2.x's snapshotters hand over with uidmap= and
 * gidmap= options (a pod with hostUsers: false; docs/cri.md, "User namespaces"). The same
 * system calls as containerd's runc shim (core/mount/mount_idmapped_linux.go):
 *
 *   userNamespace(uidMap, gidMap)   -> fd   a user namespace with these mappings (the text of
 *                                           /proc/<pid>/uid_map, "inside outside count\n"
 *                                           per range), close-on-exec; the caller closes it
 *   idmapMount(source, target, usernsFd, recursive, readOnly)
 *                                           open_tree(OPEN_TREE_CLONE) of source,
 *                                           mount_setattr(MOUNT_ATTR_IDMAP) with that namespace,
 *                                           move_mount onto target: nothing is mounted unless
 *                                           all three succeed
 *
 * A user namespace needs a process to make it in: the shim's one JS thread shares its
 * process with libuv's threads, and unshare(CLONE_NEWUSER) refuses a threaded process. The
 * helper is a clone(CLONE_VM | CLONE_NEWUSER) on a small stack of its own, as launch.c's
 * child (no copy of the shim's page tables; raw system calls only, since the C library's
 * state, errno included, is the shim's). It waits on a pipe while this thread writes its
 * maps and opens its namespace, and exits when the pipe is closed; it is reaped here before
 * the call returns, so the shim's reapers never see it. The namespace lives on through the
 * descriptor (and through every mount made with it).
 */
#define _GNU_SOURCE
#include <node_api.h>
#include "errors.h"
#include "export.h"
#include "raw-syscall.h"
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif

/* <linux/mount.h>'s, under names of our own: that header and glibc's <sys/mount.h> clash on some releases. */
#define SKIFF_OPEN_TREE_CLONE 1
#define SKIFF_MOVE_MOUNT_F_EMPTY_PATH 0x4
#define SKIFF_MOUNT_ATTR_RDONLY 0x1
#define SKIFF_MOUNT_ATTR_IDMAP 0x100000
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

/* The kernel reads the whole structure (its size is passed): the members left zero are its too. */
struct skiff_mount_attr {
  uint64_t attr_set;
  // cppcheck-suppress unusedStructMember
  uint64_t attr_clr;
  // cppcheck-suppress unusedStructMember
  uint64_t propagation;
  uint64_t userns_fd;
};

/* A uid_map or gid_map as the kernel takes it: at most 340 lines of three numbers. */
#define MAP_TEXT_MAX 16384

static int arg_string(napi_env env, napi_value value, char *out, size_t size) {
  size_t len;
  return napi_get_value_string_utf8(env, value, out, size, &len) == napi_ok && len < size - 1;
}

#if defined(__linux__) && defined(SKIFF_RAW_SYSCALL)

#define CHILD_STACK (16 * 1024)

#if defined(__has_attribute) && __has_attribute(no_stack_protector)
#define CHILD_CODE __attribute__((no_stack_protector))
#else
#define CHILD_CODE
#endif

struct helper {
  int read_end, write_end;
};

/* The helper: in its new user namespace, it waits for the pipe's end of file and exits. */
CHILD_CODE static int helper_main(void *arg) {
  const struct helper *h = (const struct helper *)arg;
  char byte;
  raw_syscall4(__NR_close, h->write_end, 0, 0, 0);
  while (raw_syscall4(__NR_read, h->read_end, (long)&byte, 1, 0) == -EINTR) {
  }
  raw_syscall4(__NR_exit, 0, 0, 0, 0);
  return 0;
}

/* Writes the whole map to /proc/<pid>/<file> in one write, as the kernel requires: 0 or an errno. */
static int write_map(pid_t pid, const char *file, const char *text) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  size_t len = strlen(text);
  ssize_t n = write(fd, text, len);
  int err = n < 0 ? errno : ((size_t)n == len ? 0 : EIO);
  close(fd);
  return err;
}

/* 0 with *nsfd set, or an errno with *step naming the call that failed. */
static int make_userns(const char *uid_map, const char *gid_map, int *nsfd, const char **step) {
  int pipe_fds[2];
  *step = "pipe2";
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return errno;
  struct helper h = {pipe_fds[0], pipe_fds[1]};
  /* fd -1: what mmap(2) asks of MAP_ANONYMOUS for portability; cppcheck's POSIX rule does not know the flag. */
  // cppcheck-suppress invalidFunctionArg
  void *stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) {
    int err = errno;
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    *step = "mmap";
    return err;
  }
  /* Every signal blocked in the helper (it inherits the mask): a handler there would run the shim's code. */
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);
  void *stack_top = (void *)(((uintptr_t)stack + CHILD_STACK) & ~(uintptr_t)15);
  pid_t child = clone(helper_main, stack_top, CLONE_VM | CLONE_NEWUSER | SIGCHLD, &h);
  int err = child < 0 ? errno : 0;
  pthread_sigmask(SIG_SETMASK, &before, NULL);
  close(pipe_fds[0]);
  *nsfd = -1;
  if (child < 0) {
    *step = "clone(CLONE_NEWUSER)";
  } else if ((err = write_map(child, "uid_map", uid_map)) != 0) {
    *step = "uid_map";
  } else if ((err = write_map(child, "gid_map", gid_map)) != 0) {
    *step = "gid_map";
  } else {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/user", (int)child);
    *nsfd = open(path, O_RDONLY | O_CLOEXEC);
    if (*nsfd < 0) {
      err = errno;
      *step = "open(ns/user)";
    }
  }
  close(pipe_fds[1]); /* the helper's end of file: it exits */
  if (child > 0) {
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {
    }
  }
  munmap(stack, CHILD_STACK);
  return err;
}

static napi_value UserNamespace(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], result;
  static char uid_map[MAP_TEXT_MAX], gid_map[MAP_TEXT_MAX];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 2 || !arg_string(env, argv[0], uid_map, sizeof uid_map) ||
      !arg_string(env, argv[1], gid_map, sizeof gid_map) || uid_map[0] == '\0' || gid_map[0] == '\0')
    return skiff_throw_errno(env, "userNamespace", EINVAL);
  int nsfd = -1;
  const char *step = NULL;
  int err = make_userns(uid_map, gid_map, &nsfd, &step);
  if (err != 0) return skiff_throw_errno(env, step, err);
  napi_create_int32(env, nsfd, &result);
  return result;
}

static napi_value IdmapMount(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  static char source[4096], target[4096];
  int32_t nsfd;
  bool recursive, read_only;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 5 || !arg_string(env, argv[0], source, sizeof source) || !arg_string(env, argv[1], target, sizeof target) ||
      napi_get_value_int32(env, argv[2], &nsfd) != napi_ok || nsfd < 0 ||
      napi_get_value_bool(env, argv[3], &recursive) != napi_ok || napi_get_value_bool(env, argv[4], &read_only) != napi_ok)
    return skiff_throw_errno(env, "idmapMount", EINVAL);
  unsigned int at_recursive = recursive ? AT_RECURSIVE : 0;
  int tree = (int)syscall(SYS_open_tree, AT_FDCWD, source, SKIFF_OPEN_TREE_CLONE | O_CLOEXEC | at_recursive);
  if (tree < 0) return skiff_throw_errno(env, "open_tree", errno);
  struct skiff_mount_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.attr_set = SKIFF_MOUNT_ATTR_IDMAP | (read_only ? SKIFF_MOUNT_ATTR_RDONLY : 0);
  attr.userns_fd = (uint64_t)nsfd;
  const char *step = NULL;
  int err = 0;
  if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | at_recursive, &attr, sizeof attr) != 0) {
    err = errno;
    step = "mount_setattr(MOUNT_ATTR_IDMAP)";
  } else if (syscall(SYS_move_mount, tree, "", AT_FDCWD, target, SKIFF_MOVE_MOUNT_F_EMPTY_PATH) != 0) {
    err = errno;
    step = "move_mount";
  }
  /* The clone is attached, or (on failure) dropped with its last descriptor. */
  close(tree);
  if (err != 0) return skiff_throw_errno(env, step, err);
  return NULL;
}

#else

static napi_value UserNamespace(napi_env env, napi_callback_info info) {
  (void)info;
  return skiff_throw_errno(env, "clone(CLONE_NEWUSER)", ENOSYS);
}

static napi_value IdmapMount(napi_env env, napi_callback_info info) {
  (void)info;
  return skiff_throw_errno(env, "mount_setattr", ENOSYS);
}

#endif

void skiff_register_idmap(napi_env env, napi_value exports) {
  skiff_export(env, exports, "userNamespace", UserNamespace, NULL);
  skiff_export(env, exports, "idmapMount", IdmapMount, NULL);
}
