/* The protobuf wire format: see proto-wire.h. */
#include "proto-wire.h"

#include <string.h>

static int get_varint(const unsigned char **p, const unsigned char *end, uint64_t *v) {
  *v = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (*p >= end) return -1;
    unsigned char b = *(*p)++;
    *v |= (uint64_t)(b & 0x7f) << shift;
    if (b < 0x80) return 0;
  }
  return -1;
}

int proto_next(const unsigned char **p, const unsigned char *end, struct proto_field *f) {
  if (*p >= end) return 0;
  uint64_t key, n;
  if (get_varint(p, end, &key) != 0 || key >> 3 == 0 || key >> 3 > 0x1fffffff) return -1;
  f->number = (uint32_t)(key >> 3);
  f->wire_type = (unsigned)(key & 7);
  f->varint = 0;
  f->bytes.data = *p;
  f->bytes.len = 0;
  switch (f->wire_type) {
  case 0:
    return get_varint(p, end, &f->varint) == 0 ? 1 : -1;
  case 1:
    if ((size_t)(end - *p) < 8) return -1;
    *p += 8;
    return 1;
  case 2:
    if (get_varint(p, end, &n) != 0 || n > (uint64_t)(end - *p)) return -1;
    f->bytes.data = *p;
    f->bytes.len = (size_t)n;
    *p += n;
    return 1;
  case 5:
    if ((size_t)(end - *p) < 4) return -1;
    *p += 4;
    return 1;
  default:
    return -1;
  }
}

size_t proto_varint_len(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, n++;
  return n;
}

unsigned char *proto_put_varint(unsigned char *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  *p++ = (unsigned char)v;
  return p;
}

unsigned char *proto_put_header(unsigned char *p, unsigned field, size_t len) {
  p = proto_put_varint(p, (uint64_t)field << 3 | PROTO_LEN);
  return proto_put_varint(p, len);
}

unsigned char *proto_put_bytes(unsigned char *p, unsigned field, const void *data, size_t len) {
  p = proto_put_header(p, field, len);
  memcpy(p, data, len);
  return p + len;
}
