/* read-all.h. */
#include "read-all.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

unsigned char *read_all(int fd, size_t max, size_t *len) {
  unsigned char *buf = malloc(max + 2);
  size_t n = 0;
  ssize_t r = 0;
  while (buf != NULL && n <= max && ((r = read(fd, buf + n, max + 1 - n)) > 0 || (r < 0 && errno == EINTR)))
    if (r > 0) n += (size_t)r;
  int err = buf == NULL ? ENOMEM : r < 0 ? errno : n > max ? EFBIG : 0;
  if (err != 0) {
    free(buf);
    errno = err;
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

char *read_file(const char *path, size_t max, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  size_t n = 0;
  char *text = (char *)read_all(fd, max, &n);
  int err = errno;
  close(fd);
  errno = err;
  if (text != NULL && len != NULL) *len = n;
  return text;
}
