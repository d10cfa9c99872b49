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
