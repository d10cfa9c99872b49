/*
 * Errors of the addon as Node's own: an Error whose message is "syscall: strerror" and
 * whose code is the errno name (EACCES, ...), so callers test err.code as for node:fs.
 * Shared by every source file of the addon (errors.h).
 */
#include <node_api.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "errors.h"

const char *skiff_errno_name(int err) {
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
    case EADDRINUSE: return "EADDRINUSE";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case EMFILE: return "EMFILE";
    case EBUSY: return "EBUSY";
    case ENODEV: return "ENODEV";
    case ENOSPC: return "ENOSPC";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EROFS: return "EROFS";
    case EOVERFLOW: return "EOVERFLOW";
    default: return "EUNKNOWN";
  }
}

napi_value skiff_throw_errno(napi_env env, const char *syscall, int err) {
  napi_value msg, code, error;
  char text[256];
  snprintf(text, sizeof text, "%s: %s", syscall, strerror(err));
  napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &msg);
  napi_create_string_utf8(env, skiff_errno_name(err), NAPI_AUTO_LENGTH, &code);
  napi_create_error(env, code, msg, &error);
  napi_set_named_property(env, error, "code", code);
  napi_throw(env, error);
  return NULL;
}
