/* The control connection's framing (docs/keeper-protocol.md, "The control connection"). */
#include "control-wire.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int control_frame(const unsigned char *buf, size_t len, size_t *size) {
  if (len < 4) return 0;
  uint32_t n = (uint32_t)buf[0] << 24 | (uint32_t)buf[1] << 16 | (uint32_t)buf[2] << 8 | buf[3];
  if (n == 0 || n > CONTROL_MESSAGE_MAX) return -1;
  if (len - 4 < n) return 0;
  *size = 4 + (size_t)n;
  return 1;
}

int control_fields(const char *body, size_t len, const char **fields, int max) {
  if (len > 0 && body[len - 1] != '\0') return -1;
  int count = 0;
  size_t at = 0;
  while (at < len) {
    if (count == max) return -1;
    fields[count++] = body + at;
    at += strlen(body + at) + 1;
  }
  return count;
}

int control_request_ok(char type, int count) {
  switch (type) {
  case 'L':
    return count >= 6;
  case 'R':
    return count == 4;
  case 'S':
    return count == 3;
  case 'C':
  case 'A':
  case 'D':
    return count == 1;
  case 'Q':
    return count == 0;
  default:
    return 0;
  }
}

int control_request(const unsigned char *message, size_t size, char *type, const char **fields, int max) {
  *type = (char)message[4];
  int count = control_fields((const char *)message + 5, size - 5, fields, max);
  return count >= 0 && control_request_ok(*type, count) ? count : -1;
}

unsigned char *control_message(char type, const char *const *fields, int count, size_t *size) {
  size_t n = 1;
  for (int i = 0; i < count; i++) n += strlen(fields[i]) + 1;
  if (n > CONTROL_MESSAGE_MAX) return NULL;
  unsigned char *out = malloc(4 + n);
  if (out == NULL) return NULL;
  out[0] = (unsigned char)(n >> 24);
  out[1] = (unsigned char)(n >> 16);
  out[2] = (unsigned char)(n >> 8);
  out[3] = (unsigned char)n;
  out[4] = (unsigned char)type;
  size_t at = 5;
  for (int i = 0; i < count; i++) {
    size_t flen = strlen(fields[i]) + 1;
    memcpy(out + at, fields[i], flen);
    at += flen;
  }
  *size = 4 + n;
  return out;
}

int control_number(const char *text, long *out) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || errno != 0) return -1;
  *out = v;
  return 0;
}
