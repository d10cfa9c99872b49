/*
 * skiff_native: the few system calls Node.js does not expose and the shim needs.
 * Built from source by `npm install` (node-gyp, the machine's C compiler).
 *
 *   fionread(fd)          bytes waiting unread in a pipe or FIFO (ioctl FIONREAD)
 *   mkfifo(path, mode)    create a FIFO
 *
 * Every function throws a JS Error with `code` set to the errno name on failure.
 */
#define _GNU_SOURCE
#include <node_api.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>

static const char *errno_name(int err) {
  switch (err) {
    case EACCES: return "EACCES";
    case EBADF: return "EBADF";
    case EEXIST: return "EEXIST";
    case EINVAL: return "EINVAL";
    case ENOENT: return "ENOENT";
    case ENOTDIR: return "ENOTDIR";
    case ENOTTY: return "ENOTTY";
    case EPERM: return "EPERM";
    case ESRCH: return "ESRCH";
    case ECHILD: return "ECHILD";
    case EAGAIN: return "EAGAIN";
    case ENOSYS: return "ENOSYS";
    default: return "EUNKNOWN";
  }
}

static napi_value throw_errno(napi_env env, const char *syscall, int err) {
  napi_value msg, code, error;
  char text[256];
  snprintf(text, sizeof text, "%s: %s", syscall, strerror(err));
  napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &msg);
  napi_create_string_utf8(env, errno_name(err), NAPI_AUTO_LENGTH, &code);
  napi_create_error(env, code, msg, &error);
  napi_set_named_property(env, error, "code", code);
  napi_throw(env, error);
  return NULL;
}

static int arg_int32(napi_env env, napi_value value, int32_t *out) {
  return napi_get_value_int32(env, value, out) == napi_ok;
}

static napi_value Fionread(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd;
  int pending = 0;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1 || !arg_int32(env, argv[0], &fd)) return throw_errno(env, "fionread", EINVAL);
  if (ioctl(fd, FIONREAD, &pending) != 0) return throw_errno(env, "ioctl(FIONREAD)", errno);
  napi_value result;
  napi_create_int32(env, pending, &result);
  return result;
}

static napi_value Mkfifo(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  char path[4096];
  size_t len;
  int32_t mode;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 2 || napi_get_value_string_utf8(env, argv[0], path, sizeof path, &len) != napi_ok ||
      len >= sizeof path - 1 || !arg_int32(env, argv[1], &mode)) {
    return throw_errno(env, "mkfifo", EINVAL);
  }
  if (mkfifo(path, (mode_t)mode) != 0) return throw_errno(env, "mkfifo", errno);
  return NULL;
}

static void export_function(napi_env env, napi_value exports, const char *name, napi_callback fn) {
  napi_value value;
  napi_create_function(env, name, NAPI_AUTO_LENGTH, fn, NULL, &value);
  napi_set_named_property(env, exports, name, value);
}

NAPI_MODULE_INIT() {
  export_function(env, exports, "fionread", Fionread);
  export_function(env, exports, "mkfifo", Mkfifo);
  return exports;
}
