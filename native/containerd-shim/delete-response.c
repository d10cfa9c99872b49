/* delete_response_encode: see delete-response.h. Field numbers and wire types of proto3. */
#include "delete-response.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static unsigned char *put_varint(unsigned char *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  *p++ = (unsigned char)v;
  return p;
}

/* A varint field (wire type 0), left out at its default 0 as proto3 does. */
static unsigned char *put_field(unsigned char *p, unsigned field, uint64_t v) {
  if (v == 0) return p;
  p = put_varint(p, field << 3);
  return put_varint(p, v);
}

size_t delete_response_encode(unsigned char *out, uint32_t pid, uint32_t exit_status, int64_t seconds,
                              int32_t nanos) {
  unsigned char ts[24], *t = ts;
  /* int64 and int32 are varints of their two's complement, 64 bits wide, when negative. */
  t = put_field(t, 1, (uint64_t)seconds);
  t = put_field(t, 2, (uint64_t)(int64_t)nanos);
  unsigned char *p = out;
  p = put_field(p, 1, pid);
  p = put_field(p, 2, exit_status);
  p = put_varint(p, 3 << 3 | 2); /* exited_at: a message, length-delimited */
  p = put_varint(p, (uint64_t)(t - ts));
  memcpy(p, ts, (size_t)(t - ts));
  return (size_t)(p - out) + (size_t)(t - ts);
}

void delete_response_print_killed(uint32_t pid) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  unsigned char out[DELETE_RESPONSE_MAX];
  size_t len = delete_response_encode(out, pid, 137, (int64_t)now.tv_sec, (int32_t)now.tv_nsec);
  fwrite(out, 1, len, stdout);
}
