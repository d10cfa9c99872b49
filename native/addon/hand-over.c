/*
 * What the containerd serving process needs to hand its work to a new one
 * (docs/upgrade.md):
 *   shutdownRead(fd)  shutdown(fd, SHUT_RD) on a connected unix stream socket: what the peer
 *                     wrote before stays readable, and the peer's later writes fail (EPIPE), so
 *                     no request can land unread in a connection that is about to close
 *   dupFd(fd)         a close-on-exec copy of a descriptor (the listener, kept open, not
 *                     accepted from, while Node's own handle of it is closed)
 */
#define _GNU_SOURCE
#include <node_api.h>
#include "errors.h"
#include "export.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/socket.h>

/* Above the standard three and the listener the serving process is given as fd 3. */
#define DUP_FLOOR 10

static int fd_arg(napi_env env, napi_callback_info info, int32_t *fd) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  return argc >= 1 && napi_get_value_int32(env, argv[0], fd) == napi_ok && *fd >= 0;
}

static napi_value ShutdownRead(napi_env env, napi_callback_info info) {
  int32_t fd;
  if (!fd_arg(env, info, &fd)) return skiff_throw_errno(env, "shutdown", EINVAL);
  /* ENOTCONN: the peer has gone already, and there is nothing left to stop. */
  if (shutdown(fd, SHUT_RD) != 0 && errno != ENOTCONN) return skiff_throw_errno(env, "shutdown", errno);
  return NULL;
}

static napi_value DupFd(napi_env env, napi_callback_info info) {
  int32_t fd;
  if (!fd_arg(env, info, &fd)) return skiff_throw_errno(env, "fcntl(F_DUPFD_CLOEXEC)", EINVAL);
  int copy = fcntl(fd, F_DUPFD_CLOEXEC, DUP_FLOOR);
  if (copy < 0) return skiff_throw_errno(env, "fcntl(F_DUPFD_CLOEXEC)", errno);
  napi_value result;
  napi_create_int32(env, copy, &result);
  return result;
}

void skiff_register_hand_over(napi_env env, napi_value exports) {
  skiff_export(env, exports, "shutdownRead", ShutdownRead, NULL);
  skiff_export(env, exports, "dupFd", DupFd, NULL);
}
