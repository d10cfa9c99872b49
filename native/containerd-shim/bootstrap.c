/* start's BootstrapParams and BootstrapResult: see bootstrap.h. */
#include "bootstrap.h"

#include <string.h>

int bootstrap_params_decode(const unsigned char *in, size_t len, struct bootstrap_params *out) {
  memset(out, 0, sizeof *out);
  const unsigned char *p = in, *end = in + len;
  struct proto_field f;
  int r;
  while ((r = proto_next(&p, end, &f)) > 0) {
    /* A field of another wire type is not that field (protobuf keeps it as an unknown one). */
    if (f.wire_type != PROTO_LEN) continue;
    switch (f.number) {
    case 1: out->instance_id = f.bytes; break;
    case 2: out->namespace_ = f.bytes; break;
    default: break;
    }
  }
  return r;
}

static int bytes_are(struct bytes b, const char *s) {
  size_t n = strlen(s);
  return b.len == n && (n == 0 || memcmp(b.data, s, n) == 0);
}

int bootstrap_params_of(const unsigned char *in, size_t len, const char *id, const char *ns,
                        struct bootstrap_params *out) {
  if (len == 0 || bootstrap_params_decode(in, len, out) != 0) return 0;
  /* An empty id or namespace never matches: the flags are containerd identifiers, never empty. */
  if (id == NULL || ns == NULL || *id == '\0' || *ns == '\0') return 0;
  return bytes_are(out->instance_id, id) && bytes_are(out->namespace_, ns);
}

size_t bootstrap_result_max(size_t address_len) { return address_len + sizeof BOOTSTRAP_PROTOCOL + 3 * 11; }

size_t bootstrap_result_encode(unsigned char *out, const char *address) {
  unsigned char *p = out;
  p = proto_put_varint(p, 1 << 3 | PROTO_VARINT);
  p = proto_put_varint(p, BOOTSTRAP_VERSION);
  p = proto_put_bytes(p, 2, address, strlen(address));
  p = proto_put_bytes(p, 3, BOOTSTRAP_PROTOCOL, sizeof BOOTSTRAP_PROTOCOL - 1);
  return (size_t)(p - out);
}
