/*
 * sendWithFds(socketFd, data, fds): writes `data` on a connected unix stream socket with
 * `fds` attached as SCM_RIGHTS to its first byte (the pod keeper's control protocol,
 * docs/keeper-protocol.md). Node's net.Socket cannot send descriptors, so the serving
 * process writes its control messages through this and reads the keeper's with a
 * net.Socket on the same descriptor. The socket may be non-blocking (libuv makes it so):
 * a full socket buffer is waited out with poll, at most SEND_WAIT_MS in all.
 */
#define _GNU_SOURCE
#include <node_api.h>
#include "errors.h"
#include "export.h"
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#define MAX_FDS 16
#define SEND_WAIT_MS 5000

static int wait_writable(int fd, int *budget_ms) {
  struct pollfd p = {.fd = fd, .events = POLLOUT};
  if (*budget_ms <= 0) return ETIMEDOUT;
  int n = poll(&p, 1, 100);
  *budget_ms -= 100;
  if (n < 0 && errno != EINTR) return errno;
  return 0;
}

static napi_value SendWithFds(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  int32_t sock;
  void *data;
  size_t len;
  uint32_t count = 0;
  int fds[MAX_FDS];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 3 || napi_get_value_int32(env, argv[0], &sock) != napi_ok ||
      napi_get_buffer_info(env, argv[1], &data, &len) != napi_ok || len == 0 ||
      napi_get_array_length(env, argv[2], &count) != napi_ok || count > MAX_FDS)
    return skiff_throw_errno(env, "sendWithFds", EINVAL);
  for (uint32_t i = 0; i < count; i++) {
    napi_value item;
    int32_t fd;
    if (napi_get_element(env, argv[2], i, &item) != napi_ok || napi_get_value_int32(env, item, &fd) != napi_ok ||
        fd < 0)
      return skiff_throw_errno(env, "sendWithFds", EBADF);
    fds[i] = fd;
  }
  char control[CMSG_SPACE(sizeof(int) * MAX_FDS)];
  size_t sent = 0;
  int budget = SEND_WAIT_MS;
  while (sent < len) {
    struct iovec iov = {(char *)data + sent, len - sent};
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (sent == 0 && count > 0) {
      memset(control, 0, sizeof control);
      msg.msg_control = control;
      msg.msg_controllen = CMSG_SPACE(sizeof(int) * count);
      struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
      cmsg->cmsg_level = SOL_SOCKET;
      cmsg->cmsg_type = SCM_RIGHTS;
      cmsg->cmsg_len = CMSG_LEN(sizeof(int) * count);
      memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * count);
    }
    ssize_t n = sendmsg(sock, &msg, MSG_NOSIGNAL);
    if (n > 0) {
      sent += (size_t)n;
      continue;
    }
    int err = n < 0 ? errno : EIO;
    if (err == EINTR) continue;
    if (err != EAGAIN && err != EWOULDBLOCK) return skiff_throw_errno(env, "sendmsg", err);
    err = wait_writable(sock, &budget);
    if (err != 0) return skiff_throw_errno(env, "sendmsg", err);
  }
  return NULL;
}

void skiff_register_send_fds(napi_env env, napi_value exports) {
  skiff_export(env, exports, "sendWithFds", SendWithFds, NULL);
}
