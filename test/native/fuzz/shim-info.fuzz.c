/*
 * `-info`'s runtime options on stdin (native/containerd-shim/runtime-info.c), written by whoever
 * configures containerd's runtime: hostile protobuf. The input is stdin's bytes. The binary chosen
 * must be a NUL-ended name without control characters (it is exec'd and named in errors), and the
 * RuntimeInfo written with the options must hold them unchanged as its field 3.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime-info.h"

static const char FEATURES[] = "{\"ociVersionMin\":\"1.0.0\"}";

/* RuntimeInfo's field 3 (the options, the last one, as proto3 reads it). */
static struct bytes options_of(const unsigned char *info, size_t len) {
  struct bytes options = {NULL, 0};
  const unsigned char *p = info, *end = info + len;
  while (p < end) {
    unsigned key = *p++;
    size_t n = 0;
    for (unsigned shift = 0; p < end; shift += 7) {
      n |= (size_t)(*p & 0x7f) << shift;
      if (*p++ < 0x80) break;
    }
    if (key == 0x1a) options = (struct bytes){p, n};
    p += n;
  }
  return options;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
  unsigned char *in = malloc(len ? len : 1);
  memcpy(in, data, len);
  char binary[256];
  struct bytes type_url;
  const char *why = NULL;
  int r = info_runtime_binary(in, len, binary, sizeof binary, &type_url, &why);
  if (r < 0 && (why == NULL || strchr(why, '\n') != NULL)) abort();
  if (r == 0) {
    if (memchr(binary, '\0', sizeof binary) == NULL || binary[0] == '\0') abort();
    for (const char *c = binary; *c; c++)
      if ((unsigned char)*c < 0x20 || *c == 0x7f) abort();
  }
  if (r == 1 && (type_url.data < in || type_url.data + type_url.len > in + len)) abort();
  /* The reply: the options echoed whole. */
  struct bytes options = {in, len}, features = {(const unsigned char *)FEATURES, sizeof FEATURES - 1};
  unsigned char *out = malloc(runtime_info_max(4, 5, len, features.len));
  size_t n = runtime_info_encode(out, "name", "1.2.3", options, features);
  if (n > runtime_info_max(4, 5, len, features.len)) abort();
  struct bytes echoed = options_of(out, n);
  if (echoed.len != len || (len > 0 && memcmp(echoed.data, in, len) != 0)) abort();
  free(out);
  free(in);
  return 0;
}
