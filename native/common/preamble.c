/* The connection preamble (preamble.h). */
#define _GNU_SOURCE
#include "preamble.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

size_t preamble_encode(unsigned char *out, size_t size, int role, const char *fields, size_t fields_len) {
  if (fields_len > PREAMBLE_FIELDS_MAX || size < PREAMBLE_HEAD + fields_len || role < 0 || role > 0xff) return 0;
  static const unsigned char magic[] = {0xff, 'S', 'K', 'F', 1};
  memcpy(out, magic, sizeof magic);
  out[5] = (unsigned char)role;
  out[6] = (unsigned char)(fields_len >> 8);
  out[7] = (unsigned char)fields_len;
  if (fields_len > 0) memcpy(out + PREAMBLE_HEAD, fields, fields_len);
  return PREAMBLE_HEAD + fields_len;
}

int preamble_send(int fd, int role, const char *fields, size_t fields_len) {
  size_t size = PREAMBLE_HEAD + fields_len;
  unsigned char *buf = malloc(size);
  if (buf == NULL) return -1;
  size_t len = preamble_encode(buf, size, role, fields, fields_len);
  /* A fresh connection's buffer is empty: a few hundred bytes go out in one call. */
  ssize_t n = len == 0 ? (errno = EINVAL, -1) : send(fd, buf, len, MSG_NOSIGNAL);
  int err = errno;
  free(buf);
  errno = err;
  return n == (ssize_t)len && len > 0 ? 0 : -1;
}
