/* The connection preamble (preamble.h). */
#define _GNU_SOURCE
#include "preamble.h"

#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

int preamble_head(unsigned char head[PREAMBLE_HEAD], int role, size_t fields_len) {
  if (fields_len > PREAMBLE_FIELDS_MAX || role < 0 || role > 0xff) return -1;
  static const unsigned char magic[] = {0xff, 'S', 'K', 'F', 1};
  memcpy(head, magic, sizeof magic);
  head[5] = (unsigned char)role;
  head[6] = (unsigned char)(fields_len >> 8);
  head[7] = (unsigned char)fields_len;
  return 0;
}

int preamble_send(int fd, int role, const char *fields, size_t fields_len) {
  unsigned char head[PREAMBLE_HEAD];
  if (preamble_head(head, role, fields_len) != 0) return -1;
  struct iovec iov[2] = {{head, sizeof head}, {(void *)fields, fields_len}};
  struct msghdr msg;
  memset(&msg, 0, sizeof msg);
  msg.msg_iov = iov;
  msg.msg_iovlen = 2;
  /* A fresh connection's buffer is empty: a few hundred bytes go out in one call. */
  ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL);
  return n == (ssize_t)(sizeof head + fields_len) ? 0 : -1;
}
