/* ttrpc framing and the protobuf fields the keeper needs (ttrpc types.go, google/rpc/status.proto). */
#include "ttrpc-wire.h"

#include "proto-wire.h"

#include <stdlib.h>
#include <string.h>

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)(v >> 24);
  p[1] = (unsigned char)(v >> 16);
  p[2] = (unsigned char)(v >> 8);
  p[3] = (unsigned char)v;
}

void ttrpc_header_read(const unsigned char *bytes, struct ttrpc_header *h) {
  h->length = be32(bytes);
  h->stream_id = be32(bytes + 4);
  h->type = bytes[8];
  h->flags = bytes[9];
}

/*
 * Walks a message's fields to the first field `want` that is length-delimited (its bytes) or a
 * varint (value in *varint, bytes NULL), and where the fields after it start (*after).
 * Returns 1 when found, 0 when absent, -1 when the bytes are not protobuf (proto-wire.h).
 */
static int find_field(const unsigned char *p, size_t len, uint32_t want, const unsigned char **bytes, size_t *blen,
                      uint64_t *varint, const unsigned char **after) {
  const unsigned char *end = p + len;
  struct proto_field f;
  int got;
  while ((got = proto_next(&p, end, &f)) == 1) {
    if (f.number != want || (f.wire_type != PROTO_VARINT && f.wire_type != PROTO_LEN)) continue;
    *bytes = f.wire_type == PROTO_LEN ? f.bytes.data : NULL;
    *blen = f.bytes.len;
    *varint = f.varint;
    *after = p;
    return 1;
  }
  return got;
}

void ttrpc_request_method(const unsigned char *payload, size_t len, char out[METHOD_MAX]) {
  /* As protobuf reads a Request (the serving process's reader, Go's): the last method wins, and
   * bytes that are not protobuf anywhere make it no Request at all. Else a Delete named after a
   * State would be taken for the read-only State and sent again after a restart. */
  const unsigned char *p = payload, *end = payload + len, *method = NULL;
  size_t method_len = 0;
  out[0] = '\0';
  for (;;) {
    const unsigned char *bytes = NULL;
    size_t blen = 0;
    uint64_t v;
    int found = find_field(p, (size_t)(end - p), 2, &bytes, &blen, &v, &p);
    if (found < 0 || (found == 1 && bytes == NULL)) return; /* not protobuf, or a method that is no string */
    if (found == 0) break;
    method = bytes;
    method_len = blen;
  }
  if (method == NULL || method_len >= METHOD_MAX) return;
  memcpy(out, method, method_len);
  out[method_len] = '\0';
}

int ttrpc_response_ok(const unsigned char *payload, size_t len) {
  /* As protobuf reads a Response: every `status` merged into one, whose last `code` counts. */
  const unsigned char *p = payload, *end = payload + len;
  uint64_t code = 0;
  for (;;) {
    const unsigned char *status = NULL;
    size_t slen = 0;
    uint64_t v;
    int found = find_field(p, (size_t)(end - p), 1, &status, &slen, &v, &p);
    if (found < 0 || (found == 1 && status == NULL)) return 0; /* not protobuf, or a status that is no message */
    if (found == 0) return code == 0;
    for (const unsigned char *q = status, *status_end = status + slen;;) {
      const unsigned char *bytes = NULL;
      size_t blen = 0;
      uint64_t value = 0;
      int has_code = find_field(q, (size_t)(status_end - q), 1, &bytes, &blen, &value, &q);
      if (has_code < 0 || (has_code == 1 && bytes != NULL)) return 0; /* a code that is no varint */
      if (has_code == 0) break;
      code = value;
    }
  }
}

int ttrpc_last_field(const unsigned char *msg, size_t len, uint32_t number, const unsigned char **bytes, size_t *blen,
                     uint64_t *varint) {
  const unsigned char *p = msg, *end = msg + len;
  int seen = 0;
  for (;;) {
    const unsigned char *b = NULL;
    size_t n = 0;
    uint64_t v = 0;
    int found = find_field(p, (size_t)(end - p), number, &b, &n, &v, &p);
    if (found < 0) return -1;
    if (found == 0) return seen;
    seen = 1;
    *bytes = b;
    *blen = n;
    *varint = v;
  }
}

/* The header of a Response frame whose body ends at `end`; the frame's whole length. */
static size_t response_header(unsigned char *frame, const unsigned char *end, uint32_t stream_id) {
  size_t body = (size_t)(end - frame) - TTRPC_HEADER;
  put_be32(frame, (uint32_t)body);
  put_be32(frame + 4, stream_id);
  frame[8] = TTRPC_RESPONSE;
  frame[9] = 0;
  return TTRPC_HEADER + body;
}

unsigned char *ttrpc_status_frame(uint32_t stream_id, uint32_t code, const char *message, size_t *len) {
  size_t mlen = strlen(message);
  /* Response{1: Status{1: code, 2: message}} */
  size_t status_len = 1 + proto_varint_len(code) + 1 + proto_varint_len(mlen) + mlen;
  unsigned char *frame = malloc(TTRPC_HEADER + 1 + proto_varint_len(status_len) + status_len);
  if (frame == NULL) return NULL;
  unsigned char *p = proto_put_header(frame + TTRPC_HEADER, 1, status_len);
  p = proto_put_varint(p, (uint64_t)1 << 3 | PROTO_VARINT);
  p = proto_put_varint(p, code);
  p = proto_put_bytes(p, 2, message, mlen);
  *len = response_header(frame, p, stream_id);
  return frame;
}

unsigned char *ttrpc_payload_frame(uint32_t stream_id, const unsigned char *payload, size_t plen, size_t *len) {
  if (plen > TTRPC_MAX_PAYLOAD - 11) return NULL;
  /* Response{2: payload} */
  unsigned char *frame = malloc(TTRPC_HEADER + 1 + proto_varint_len(plen) + plen);
  if (frame == NULL) return NULL;
  *len = response_header(frame, proto_put_bytes(frame + TTRPC_HEADER, 2, payload, plen), stream_id);
  return frame;
}
