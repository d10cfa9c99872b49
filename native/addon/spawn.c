/*
 * Process creation for the shim: posix_spawn (glibc: clone(CLONE_VM | CLONE_VFORK),
 * no copy of the shim's page tables, where libuv's fork+exec costs about 1.3 ms more
 * in a 60 MB process), a new session, default signal dispositions and an empty signal
 * mask (Node ignores SIGPIPE; a child must not inherit that), and any descriptors
 * placed at any child fd. Helper programs (runc, mount) use it: its error says when
 * one is missing. The native runtime's start gate uses spawnNoWait, the same child
 * without the wait for its exec (launch.c). The exit is learnt with watchExit (pidfd),
 * since libuv does not know these children.
 *
 *   spawn(file, argv[], envp[], cwd, fds[])  -> pid      fds[i] becomes the child's fd i (-1: /dev/null);
 *                                                        envp null: this process's environment as it is
 *   spawnNoWait(same)                        -> pid      the same child, without waiting for its exec
 *                                                        (launch.c): a failure is the child's exit 127;
 *                                                        argv and envp an exec may refuse: spawn's wait
 *   launchPending(pid)                       -> bool     whether that spawnNoWait child has yet to exec
 *   launchesHeld()                           -> n        spawnNoWait children not yet exec'd or exited
 *   pipe()                                   -> [read, write]   both close-on-exec
 *   openPty(columns, rows)                   -> [master, slave] master non-blocking, close-on-exec
 */
#define _GNU_SOURCE
#include <node_api.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "errors.h"
#include "export.h"
#include "launch.h"

/* A JS array of strings as a NULL-terminated C array (freed with free_strings). */
static char **strings_of(napi_env env, napi_value array) {
  uint32_t length = 0;
  if (napi_get_array_length(env, array, &length) != napi_ok) return NULL;
  char **out = calloc(length + 1, sizeof *out);
  if (out == NULL) return NULL;
  for (uint32_t i = 0; i < length; i++) {
    napi_value item;
    size_t size = 0;
    napi_get_element(env, array, i, &item);
    if (napi_get_value_string_utf8(env, item, NULL, 0, &size) != napi_ok || (out[i] = malloc(size + 1)) == NULL) {
      for (uint32_t j = 0; j < i; j++) free(out[j]);
      free(out);
      return NULL;
    }
    napi_get_value_string_utf8(env, item, out[i], size + 1, &size);
  }
  return out;
}

static void free_strings(char **strings) {
  if (strings == NULL) return;
  for (char **s = strings; *s != NULL; s++) free(*s);
  free(strings);
}

/* posix_spawn with the file actions and attributes above: 0 with *pid set, or an errno. */
static int spawn_waiting(const char *file, char *const argv[], char *const envp[], const char *cwd, const int fds[],
                         int nfds, pid_t *pid) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  sigset_t all, none;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  /*
   * Sources are first copied to a staging range above every source and target fd, then
   * placed: no source is overwritten before it has been read, whatever its number.
   */
  int stage = nfds;
  for (int i = 0; i < nfds; i++) {
    if (fds[i] >= stage) stage = fds[i] + 1;
  }
  for (int i = 0; i < nfds; i++) {
    if (fds[i] >= 0) posix_spawn_file_actions_adddup2(&actions, fds[i], stage + i);
  }
  for (int i = 0; i < nfds; i++) {
    if (fds[i] >= 0) posix_spawn_file_actions_adddup2(&actions, stage + i, i);
    else posix_spawn_file_actions_addopen(&actions, i, "/dev/null", O_RDWR, 0);
  }
  for (int i = 0; i < nfds; i++) {
    if (fds[i] >= 0) posix_spawn_file_actions_addclose(&actions, stage + i);
  }
  posix_spawn_file_actions_addchdir_np(&actions, cwd);
  int rc = posix_spawn(pid, file, &actions, &attr, argv, envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return rc;
}

/* spawn and spawnNoWait: the same arguments; the function's data says whether to wait for the exec. */
static napi_value Spawn(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5], result;
  void *no_wait = NULL;
  char file[4096], cwd[4096];
  size_t len;
  uint32_t nfds = 0;
  int fds[MAX_CHILD_FDS];
  napi_get_cb_info(env, info, &argc, argv, NULL, &no_wait);
  if (argc < 5 || napi_get_value_string_utf8(env, argv[0], file, sizeof file, &len) != napi_ok || len >= sizeof file - 1 ||
      napi_get_value_string_utf8(env, argv[3], cwd, sizeof cwd, &len) != napi_ok || len >= sizeof cwd - 1 ||
      napi_get_array_length(env, argv[4], &nfds) != napi_ok || nfds > MAX_CHILD_FDS) {
    return skiff_throw_errno(env, "spawn", EINVAL);
  }
  for (uint32_t i = 0; i < nfds; i++) {
    napi_value item;
    napi_get_element(env, argv[4], i, &item);
    if (napi_get_value_int32(env, item, &fds[i]) != napi_ok) return skiff_throw_errno(env, "spawn", EINVAL);
  }
  /*
   * A null envp hands on `environ`, which process.env writes through to (setenv): no copy of
   * the environment into JS strings and back at every helper program.
   */
  napi_valuetype envp_type = napi_undefined;
  napi_typeof(env, argv[2], &envp_type);
  bool own_environ = envp_type == napi_null;
  char **child_argv = strings_of(env, argv[1]);
  char **child_envp = own_environ ? environ : strings_of(env, argv[2]);
  if (child_argv == NULL || child_envp == NULL || child_argv[0] == NULL) {
    free_strings(child_argv);
    if (!own_environ) free_strings(child_envp);
    return skiff_throw_errno(env, "spawn", EINVAL);
  }
  pid_t pid = 0;
  const char *how = "clone";
  int rc = no_wait != NULL ? skiff_launch(file, child_argv, child_envp, cwd, fds, (int)nfds, &pid) : ENOSYS;
  if (rc == ENOSYS) {
    how = "posix_spawn";
    rc = spawn_waiting(file, child_argv, child_envp, cwd, fds, (int)nfds, &pid);
  }
  free_strings(child_argv);
  if (!own_environ) free_strings(child_envp);
  if (rc != 0) return skiff_throw_errno(env, how, rc);
  napi_create_int32(env, pid, &result);
  return result;
}

static napi_value LaunchPending(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value arg, result;
  int32_t pid = 0;
  napi_get_cb_info(env, info, &argc, &arg, NULL, NULL);
  if (argc < 1 || napi_get_value_int32(env, arg, &pid) != napi_ok) return skiff_throw_errno(env, "launchPending", EINVAL);
  napi_get_boolean(env, pid > 0 && skiff_launch_pending(pid), &result);
  return result;
}

static napi_value LaunchesHeld(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  napi_create_int32(env, skiff_launches_held(), &result);
  return result;
}

static napi_value pair(napi_env env, int a, int b) {
  napi_value array, first, second;
  napi_create_array_with_length(env, 2, &array);
  napi_create_int32(env, a, &first);
  napi_create_int32(env, b, &second);
  napi_set_element(env, array, 0, first);
  napi_set_element(env, array, 1, second);
  return array;
}

static napi_value Pipe(napi_env env, napi_callback_info info) {
  (void)info;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return skiff_throw_errno(env, "pipe2", errno);
  return pair(env, fds[0], fds[1]);
}

static napi_value OpenPty(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  int32_t cols = 80, rows = 24;
  char name[128];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc >= 2) {
    napi_get_value_int32(env, argv[0], &cols);
    napi_get_value_int32(env, argv[1], &rows);
  }
  int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
  if (master < 0) return skiff_throw_errno(env, "posix_openpt", errno);
  if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, name, sizeof name) != 0) {
    int err = errno;
    close(master);
    return skiff_throw_errno(env, "unlockpt", err);
  }
  int slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (slave < 0) {
    int err = errno;
    close(master);
    return skiff_throw_errno(env, "open pty slave", err);
  }
  struct winsize size = {.ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols};
  ioctl(master, TIOCSWINSZ, &size);
  return pair(env, master, slave);
}

void skiff_register_spawn(napi_env env, napi_value exports) {
  static int no_wait = 1;
  skiff_export(env, exports, "spawn", Spawn, NULL);
  skiff_export(env, exports, "spawnNoWait", Spawn, &no_wait);
  skiff_export(env, exports, "launchPending", LaunchPending, NULL);
  skiff_export(env, exports, "launchesHeld", LaunchesHeld, NULL);
  skiff_export(env, exports, "pipe", Pipe, NULL);
  skiff_export(env, exports, "openPty", OpenPty, NULL);
}
