/*
 * start's stdin (native/containerd-shim/bootstrap.c): containerd 2.3's BootstrapParams, an older
 * daemon's runtime options, or anything a caller of the binary writes: hostile protobuf. The
 * params taken must be of this start (-id c1, -namespace default) and lie inside the input; the
 * BootstrapResult written for an address made of the input must read back as that address.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bootstrap.h"

static int inside(struct bytes b, const unsigned char *in, size_t len) {
  return b.len == 0 || (b.data >= in && b.data + b.len <= in + len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
  unsigned char *in = malloc(len ? len : 1);
  memcpy(in, data, len);
  struct bootstrap_params params;
  if (bootstrap_params_decode(in, len, &params) == 0 &&
      (!inside(params.instance_id, in, len) || !inside(params.namespace_, in, len)))
    abort();
  if (bootstrap_params_of(in, len, "c1", "default", &params) == 1 &&
      (params.instance_id.len != 2 || memcmp(params.instance_id.data, "c1", 2) != 0 || params.namespace_.len != 7 ||
       memcmp(params.namespace_.data, "default", 7) != 0))
    abort();

  /* The result for an address of the input's bytes (NUL-ended at the first NUL, at most 300). */
  char address[301];
  size_t n = len < 300 ? len : 300;
  memcpy(address, in, n);
  address[n] = '\0';
  size_t address_len = strlen(address);
  unsigned char *out = malloc(bootstrap_result_max(address_len));
  size_t out_len = bootstrap_result_encode(out, address);
  if (out_len > bootstrap_result_max(address_len)) abort();
  const unsigned char *p = out, *end = out + out_len;
  struct proto_field f;
  int r, fields = 0;
  while ((r = proto_next(&p, end, &f)) > 0) {
    fields++;
    if (f.number == 1 && f.varint != BOOTSTRAP_VERSION) abort();
    if (f.number == 2 && (f.bytes.len != address_len || memcmp(f.bytes.data, address, address_len) != 0)) abort();
    if (f.number == 3 && (f.bytes.len != 5 || memcmp(f.bytes.data, "ttrpc", 5) != 0)) abort();
  }
  if (r != 0 || fields != 3) abort();
  free(out);
  free(in);
  return 0;
}
