/*
 * skiff_native: the few system calls Node.js does not expose and the shim needs.
 * Built from source by `npm install` (node-gyp, the machine's C compiler).
 *
 *   fionread(fd)                bytes waiting unread in a pipe or FIFO (ioctl FIONREAD)
 *   mkfifo(path, mode)          create a FIFO
 *   setChildSubreaper()         prctl(PR_SET_CHILD_SUBREAPER, 1): orphans of our children become ours
 *   watchExit(pid, callback)    pidfd_open + a libuv poll on it; when the process exits, reaps exactly
 *                               that pid (waitid P_PIDFD) and calls callback(code, signal)
 *   reap(pid)                   waitid(P_PID, WNOHANG) of one zombie child: {code, signal} or null
 *   exitedChild()               the pid of a zombie child, left unreaped (waitid P_ALL, WNOWAIT); 0 if none
 *   listenUnix(path)            a listening unix stream socket (runc's --console-socket)
 *   receiveFd(listenFd)         accepts one waiting connection and returns the fd it sent (SCM_RIGHTS),
 *                               set non-blocking; EAGAIN when nothing is waiting
 *   setWindowSize(fd, cols, rows)   ioctl TIOCSWINSZ
 *   mount(source, target, fstype, flags, data)   mount(2), e.g. the snapshotter's overlay for a rootfs
 *   unmount(target, flags)      umount2(2)
 *   watchOom(dir, callback)     cgroup v1 OOM notifications of a memory cgroup (oom.c)
 *   sendWithFds(fd, data, fds)  data on a unix socket with descriptors attached (send-fds.c)
 *   shutdownRead(fd), dupFd(fd) a hand-over to a new serving process (hand-over.c)
 *   userNamespace(uidMap, gidMap), idmapMount(source, target, usernsFd, recursive, readOnly)
 *                               idmapped rootfs mounts for user-namespaced pods (idmap.c)
 *
 * Every function throws a JS Error with `code` set to the errno name on failure.
 * The process functions are Linux-only; elsewhere they throw ENOSYS.
 */
#define _GNU_SOURCE
#include <node_api.h>
#include "errors.h"
#include "export.h"
#include "poll-watch.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#ifndef P_PIDFD
#define P_PIDFD 3
#endif


static int arg_int32(napi_env env, napi_value value, int32_t *out) {
  return napi_get_value_int32(env, value, out) == napi_ok;
}

static int arg_path(napi_env env, napi_value value, char *out, size_t size) {
  size_t len;
  return napi_get_value_string_utf8(env, value, out, size, &len) == napi_ok && len < size - 1;
}

static napi_value Fionread(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd;
  int pending = 0;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1 || !arg_int32(env, argv[0], &fd)) return skiff_throw_errno(env, "fionread", EINVAL);
  if (ioctl(fd, FIONREAD, &pending) != 0) return skiff_throw_errno(env, "ioctl(FIONREAD)", errno);
  napi_value result;
  napi_create_int32(env, pending, &result);
  return result;
}

static napi_value Mkfifo(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  char path[4096];
  int32_t mode;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 2 || !arg_path(env, argv[0], path, sizeof path) || !arg_int32(env, argv[1], &mode)) {
    return skiff_throw_errno(env, "mkfifo", EINVAL);
  }
  if (mkfifo(path, (mode_t)mode) != 0) return skiff_throw_errno(env, "mkfifo", errno);
  return NULL;
}

/* {code, signal} from a waitid result: exactly one of the two is set, the other is null. */
static napi_value exit_object(napi_env env, const siginfo_t *si) {
  napi_value result, code, signal, null;
  napi_get_null(env, &null);
  napi_create_object(env, &result);
  if (si->si_code == CLD_EXITED) {
    napi_create_int32(env, si->si_status, &code);
    signal = null;
  } else {
    code = null;
    napi_create_int32(env, si->si_status, &signal);
  }
  napi_set_named_property(env, result, "code", code);
  napi_set_named_property(env, result, "signal", signal);
  return result;
}

static napi_value SetChildSubreaper(napi_env env, napi_callback_info info) {
  (void)info;
#ifdef __linux__
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) return skiff_throw_errno(env, "prctl(PR_SET_CHILD_SUBREAPER)", errno);
  return NULL;
#else
  return skiff_throw_errno(env, "prctl(PR_SET_CHILD_SUBREAPER)", ENOSYS);
#endif
}

static napi_value Reap(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result;
  int32_t pid;
  siginfo_t si;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1 || !arg_int32(env, argv[0], &pid) || pid <= 0) return skiff_throw_errno(env, "reap", EINVAL);
  memset(&si, 0, sizeof si);
  if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG) != 0) return skiff_throw_errno(env, "waitid", errno);
  if (si.si_pid == 0) {
    napi_get_null(env, &result);
    return result;
  }
  return exit_object(env, &si);
}

/* A subreaper's cheap question "has any child exited?": one system call, nothing reaped. */
static napi_value ExitedChild(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  siginfo_t si;
  memset(&si, 0, sizeof si);
  if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 && errno != ECHILD)
    return skiff_throw_errno(env, "waitid", errno);
  napi_create_int32(env, si.si_pid, &result);
  return result;
}

#ifdef __linux__
/*
 * One exit watch: a pidfd polled on Node's own event loop. When it turns readable the
 * process has exited; waitid(P_PIDFD) then reaps that process and no other, so the
 * children libuv spawned itself (and reaps by pid) are never touched.
 */
typedef struct {
  skiff_poll_watch base; /* first: the poll's data is this watch */
  int pidfd;
} exit_watch;

typedef struct {
  const siginfo_t *si;
  int err;
} exit_result;

static void release_exit_watch(skiff_poll_watch *base) {
  exit_watch *w = (exit_watch *)base;
  close(w->pidfd);
  free(w);
}

/* callback(exit, null) or callback(null, error) */
static size_t exit_args(napi_env env, void *context, napi_value *argv) {
  const exit_result *r = (const exit_result *)context;
  if (r->err == 0) {
    argv[0] = exit_object(env, r->si);
    napi_get_null(env, &argv[1]);
  } else {
    napi_value code, msg;
    napi_get_null(env, &argv[0]);
    napi_create_string_utf8(env, skiff_errno_name(r->err), NAPI_AUTO_LENGTH, &code);
    napi_create_string_utf8(env, strerror(r->err), NAPI_AUTO_LENGTH, &msg);
    napi_create_error(env, code, msg, &argv[1]);
    napi_set_named_property(env, argv[1], "code", code);
  }
  return 2;
}

static void on_pidfd(skiff_poll_watch *base, int status) {
  exit_watch *w = (exit_watch *)base;
  siginfo_t si;
  exit_result result = {&si, 0};
  memset(&si, 0, sizeof si);
  if (status < 0) {
    result.err = -status;
  } else if (waitid((idtype_t)P_PIDFD, (id_t)w->pidfd, &si, WEXITED | WNOHANG) != 0) {
    result.err = errno;
  } else if (si.si_pid == 0) {
    return; /* readable before the exit was reapable: wait for the next wake-up */
  }
  skiff_watch_call(base, exit_args, &result);
  skiff_watch_end(base);
}
#endif

static napi_value WatchExit(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  int32_t pid;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 2 || !arg_int32(env, argv[0], &pid) || pid <= 0) return skiff_throw_errno(env, "watchExit", EINVAL);
#ifdef __linux__
  int pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
  if (pidfd < 0) return skiff_throw_errno(env, "pidfd_open", errno);
  fcntl(pidfd, F_SETFD, FD_CLOEXEC);
  exit_watch *w = calloc(1, sizeof *w);
  if (w == NULL) {
    close(pidfd);
    return skiff_throw_errno(env, "watchExit", ENOMEM);
  }
  w->pidfd = pidfd;
  w->base.ready = on_pidfd;
  w->base.release = release_exit_watch;
  int err = skiff_watch_start(env, &w->base, pidfd, argv[1], "skiff:exit-watch", 1);
  if (err != 0) return skiff_throw_errno(env, "uv_poll_start", err);
  return NULL;
#else
  return skiff_throw_errno(env, "pidfd_open", ENOSYS);
#endif
}

static napi_value ListenUnix(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], result;
  struct sockaddr_un addr;
  int32_t backlog = 4;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc >= 2 && !arg_int32(env, argv[1], &backlog)) return skiff_throw_errno(env, "listenUnix", EINVAL);
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (argc < 1 || !arg_path(env, argv[0], addr.sun_path, sizeof addr.sun_path)) {
    return skiff_throw_errno(env, "listenUnix", ENAMETOOLONG);
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return skiff_throw_errno(env, "socket", errno);
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, backlog) != 0) {
    int err = errno;
    close(fd);
    return skiff_throw_errno(env, "bind/listen", err);
  }
  napi_create_int32(env, fd, &result);
  return result;
}

static napi_value ReceiveFd(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result;
  int32_t listen_fd;
  char data[256];
  char control[CMSG_SPACE(sizeof(int))];
  struct iovec iov = { data, sizeof data };
  struct msghdr msg;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1 || !arg_int32(env, argv[0], &listen_fd)) return skiff_throw_errno(env, "receiveFd", EINVAL);
#ifndef __linux__
  (void)result; (void)data; (void)control; (void)iov; (void)msg;
  return skiff_throw_errno(env, "receiveFd", ENOSYS);
#else
  int conn = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (conn < 0) return skiff_throw_errno(env, "accept", errno);
  memset(&msg, 0, sizeof msg);
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC);
  int err = errno;
  close(conn);
  if (n < 0) return skiff_throw_errno(env, "recvmsg", err);
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  if (cmsg == NULL || cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS) {
    return skiff_throw_errno(env, "recvmsg(SCM_RIGHTS)", EBADF);
  }
  int fd;
  memcpy(&fd, CMSG_DATA(cmsg), sizeof fd);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  napi_create_int32(env, fd, &result);
  return result;
#endif
}

static napi_value SetWindowSize(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  int32_t fd, cols, rows;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 3 || !arg_int32(env, argv[0], &fd) || !arg_int32(env, argv[1], &cols) || !arg_int32(env, argv[2], &rows) ||
      cols < 0 || rows < 0 || cols > 65535 || rows > 65535) {
    return skiff_throw_errno(env, "setWindowSize", EINVAL);
  }
  struct winsize size;
  memset(&size, 0, sizeof size);
  size.ws_col = (unsigned short)cols;
  size.ws_row = (unsigned short)rows;
  if (ioctl(fd, TIOCSWINSZ, &size) != 0) return skiff_throw_errno(env, "ioctl(TIOCSWINSZ)", errno);
  return NULL;
}

#ifdef __linux__
#include <sys/mount.h>
#endif

/* Options can be long (overlay's lowerdir= lists every layer): up to a page, as the kernel takes. */
#define MOUNT_DATA_MAX 4096

static napi_value Mount(napi_env env, napi_callback_info info) {
#ifdef __linux__
  size_t argc = 5;
  napi_value argv[5];
  char source[4096], target[4096], fstype[256], data[MOUNT_DATA_MAX];
  int32_t flags;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 5 || !arg_path(env, argv[0], source, sizeof source) || !arg_path(env, argv[1], target, sizeof target) ||
      !arg_path(env, argv[2], fstype, sizeof fstype) || !arg_int32(env, argv[3], &flags) ||
      !arg_path(env, argv[4], data, sizeof data)) {
    return skiff_throw_errno(env, "mount", EINVAL);
  }
  if (mount(source, target, fstype, (unsigned long)(uint32_t)flags, data[0] ? data : NULL) != 0)
    return skiff_throw_errno(env, "mount", errno);
  return NULL;
#else
  (void)info;
  return skiff_throw_errno(env, "mount", ENOSYS);
#endif
}

static napi_value Unmount(napi_env env, napi_callback_info info) {
#ifdef __linux__
  size_t argc = 2;
  napi_value argv[2];
  char target[4096];
  int32_t flags;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 2 || !arg_path(env, argv[0], target, sizeof target) || !arg_int32(env, argv[1], &flags))
    return skiff_throw_errno(env, "umount2", EINVAL);
  if (umount2(target, flags) != 0) return skiff_throw_errno(env, "umount2", errno);
  return NULL;
#else
  (void)info;
  return skiff_throw_errno(env, "umount2", ENOSYS);
#endif
}

void skiff_register_spawn(napi_env env, napi_value exports);
void skiff_register_oom(napi_env env, napi_value exports);
void skiff_register_send_fds(napi_env env, napi_value exports);
void skiff_register_hand_over(napi_env env, napi_value exports);
void skiff_register_idmap(napi_env env, napi_value exports);

NAPI_MODULE_INIT() {
  skiff_export(env, exports, "fionread", Fionread, NULL);
  skiff_export(env, exports, "mkfifo", Mkfifo, NULL);
  skiff_export(env, exports, "setChildSubreaper", SetChildSubreaper, NULL);
  skiff_export(env, exports, "watchExit", WatchExit, NULL);
  skiff_export(env, exports, "reap", Reap, NULL);
  skiff_export(env, exports, "exitedChild", ExitedChild, NULL);
  skiff_export(env, exports, "listenUnix", ListenUnix, NULL);
  skiff_export(env, exports, "receiveFd", ReceiveFd, NULL);
  skiff_export(env, exports, "setWindowSize", SetWindowSize, NULL);
  skiff_export(env, exports, "mount", Mount, NULL);
  skiff_export(env, exports, "unmount", Unmount, NULL);
  skiff_register_spawn(env, exports);
  skiff_register_oom(env, exports);
  skiff_register_send_fds(env, exports);
  skiff_register_hand_over(env, exports);
  skiff_register_idmap(env, exports);
  napi_value version;
  napi_create_string_utf8(env, SKIFF_VERSION, NAPI_AUTO_LENGTH, &version);
  napi_set_named_property(env, exports, "version", version);
  return exports;
}
