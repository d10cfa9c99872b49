#define _GNU_SOURCE
#include "unix-socket.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int address_of(struct sockaddr_un *sa, const char *path) {
  memset(sa, 0, sizeof *sa);
  sa->sun_family = AF_UNIX;
  size_t len = strlen(path);
  if (len >= sizeof sa->sun_path) return errno = ENAMETOOLONG, -1;
  memcpy(sa->sun_path, path, len + 1);
  return 0;
}

int unix_listen(const char *path, int flags, int backlog) {
  struct sockaddr_un sa;
  if (address_of(&sa, path) != 0) return -1;
  int fd = socket(AF_UNIX, SOCK_STREAM | flags, 0);
  if (fd < 0) return -1;
  unlink(path);
  mode_t old = umask(0177); /* 0600 from the start */
  int ok = bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(fd, backlog) == 0;
  int err = errno;
  umask(old);
  if (!ok) {
    close(fd);
    return errno = err, -1;
  }
  return fd;
}

int unix_connect(const char *path, int flags) {
  struct sockaddr_un sa;
  if (address_of(&sa, path) != 0) return -1;
  int fd = socket(AF_UNIX, SOCK_STREAM | flags, 0);
  if (fd < 0) return -1;
  if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
    int err = errno;
    close(fd);
    return errno = err, -1;
  }
  return fd;
}

int unix_answers(const char *path) {
  int fd = unix_connect(path, SOCK_CLOEXEC);
  if (fd < 0) return 0;
  close(fd);
  return 1;
}

/* Room for as many descriptors as one message may carry to any skiff program (the keeper's control connection's FDS_MAX). */
#define RECV_FDS_MAX 64

long unix_recv_fds(int fd, void *buf, unsigned long len, int flags, int *fds, int max, int *got, int *lost) {
  struct iovec iov = {buf, len};
  char control[CMSG_SPACE(sizeof(int) * RECV_FDS_MAX)];
  struct msghdr msg;
  memset(&msg, 0, sizeof msg);
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  *got = 0;
  *lost = 0;
  ssize_t n = recvmsg(fd, &msg, flags | MSG_CMSG_CLOEXEC);
  if (n < 0) return -1;
  for (struct cmsghdr *h = CMSG_FIRSTHDR(&msg); h != NULL; h = CMSG_NXTHDR(&msg, h)) {
    if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS) continue;
    size_t count = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; i++) {
      int received;
      memcpy(&received, CMSG_DATA(h) + i * sizeof(int), sizeof received);
      if (*got < max) fds[(*got)++] = received;
      else {
        close(received);
        *lost = 1;
      }
    }
  }
  if (msg.msg_flags & MSG_CTRUNC) *lost = 1;
  return (long)n;
}
