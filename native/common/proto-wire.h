/*
 * The protobuf wire format as the shim's and the keeper's small messages need it (protobuf's encoding.md): a
 * walk over a message's fields, and the writing of varints and length-delimited fields. The
 * readers of untrusted bytes built on it (runtime-info.c: -info's options; bootstrap.c: start's
 * BootstrapParams) never read past `end` and take a malformed message as one.
 */
#ifndef SKIFF_PROTO_WIRE_H
#define SKIFF_PROTO_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* Bytes inside a buffer the caller holds: not NUL-terminated. */
struct bytes {
  const unsigned char *data;
  size_t len;
};

/* One field: its number and wire type, and its value: a varint's, or a length-delimited field's bytes. */
struct proto_field {
  uint32_t number;
  unsigned wire_type;
  uint64_t varint;
  struct bytes bytes;
};

#define PROTO_VARINT 0
#define PROTO_LEN 2

/*
 * The field at *p (before end) into *f, *p moved past it: 1; 0 at the end; -1 when the bytes
 * are not a protobuf message (a truncated field, field number 0 or past 2^29-1, wire type 3, 4,
 * 6 or 7: groups, which proto3 has none of, are refused).
 */
int proto_next(const unsigned char **p, const unsigned char *end, struct proto_field *f);

/* The length of v as a varint (1 to 10 bytes). */
size_t proto_varint_len(uint64_t v);
/* v as a varint at p; returns the byte after it. */
unsigned char *proto_put_varint(unsigned char *p, uint64_t v);
/* A length-delimited field's key and length; its `len` bytes are the caller's to write after. */
unsigned char *proto_put_header(unsigned char *p, unsigned field, size_t len);
/* A length-delimited field whole. */
unsigned char *proto_put_bytes(unsigned char *p, unsigned field, const void *data, size_t len);

#endif
