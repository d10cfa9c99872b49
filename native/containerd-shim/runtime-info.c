/* The protobuf of `-info`: see runtime-info.h. Wire types and field numbers of proto3. */
#include "runtime-info.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * Walks a message's fields: for each length-delimited field numbered `want`, *out is its bytes
 * (the last wins, as proto3 takes a repeated scalar field). Other fields are skipped by wire type.
 */
static int find_bytes(const unsigned char *buf, size_t len, uint32_t want, struct bytes *out) {
  const unsigned char *p = buf, *end = buf + len;
  struct proto_field f;
  int r;
  out->data = buf;
  out->len = 0;
  while ((r = proto_next(&p, end, &f)) > 0)
    if (f.number == want && f.wire_type == PROTO_LEN) *out = f.bytes;
  return r;
}

int any_decode(const unsigned char *buf, size_t len, struct bytes *type_url, struct bytes *value) {
  if (find_bytes(buf, len, 1, type_url) != 0) return -1;
  return find_bytes(buf, len, 2, value);
}

int type_url_is(struct bytes type_url, const char *name) {
  size_t n = strlen(name);
  if (type_url.len < n || memcmp(type_url.data + type_url.len - n, name, n) != 0) return 0;
  return type_url.len == n || type_url.data[type_url.len - n - 1] == '/';
}

int runc_options_binary_name(const unsigned char *buf, size_t len, struct bytes *binary_name) {
  return find_bytes(buf, len, 6, binary_name);
}

/* Whether bytes hold a control character: one in a name given back in an error would break its line. */
static int has_control_byte(struct bytes b) {
  for (size_t i = 0; i < b.len; i++)
    if (b.data[i] < 0x20 || b.data[i] == 0x7f) return 1;
  return 0;
}

int info_runtime_binary(const unsigned char *in, size_t len, char *binary, size_t size, struct bytes *type_url,
                        const char **why) {
  struct bytes value, name;
  snprintf(binary, size, "runc");
  type_url->data = in;
  type_url->len = 0;
  if (len == 0) return 0;
  if (any_decode(in, len, type_url, &value) != 0)
    return *why = "the runtime options on stdin are not a google.protobuf.Any", -1;
  if (!type_url_is(*type_url, RUNC_OPTIONS_TYPE)) return type_url_is(*type_url, RUNTIME_OPTIONS_TYPE) ? 0 : 1;
  if (runc_options_binary_name(value.data, value.len, &name) != 0)
    return *why = "the runtime options on stdin are not a valid " RUNC_OPTIONS_TYPE, -1;
  if (name.len >= size) return *why = "binary_name is longer than PATH_MAX", -1;
  if (memchr(name.data, '\0', name.len) != NULL) return *why = "binary_name holds a NUL byte", -1;
  if (has_control_byte(name)) return *why = "binary_name holds a control character", -1;
  if (name.len > 0) {
    memcpy(binary, name.data, name.len);
    binary[name.len] = '\0';
  }
  return 0;
}

size_t runtime_info_max(size_t name_len, size_t version_len, size_t options_len, size_t features_len) {
  /* Each field: a one-byte key and a length of at most 10 bytes; the nested ones twice; the annotation's three. */
  return name_len + version_len + options_len + features_len + sizeof FEATURES_TYPE_URL + sizeof ALLOW_MOUNTS_KEY +
         sizeof ALLOW_MOUNTS + 11 * 11;
}

size_t runtime_info_encode(unsigned char *out, const char *name, const char *version, struct bytes options,
                           struct bytes features) {
  unsigned char *p = out;
  p = proto_put_bytes(p, 1, name, strlen(name));
  size_t v_len = strlen(version);
  /* RuntimeVersion{version = 1}; revision (2) is "" and left out, as proto3 leaves defaults out. */
  p = proto_put_header(p, 2, v_len == 0 ? 0 : 1 + proto_varint_len(v_len) + v_len);
  if (v_len > 0) p = proto_put_bytes(p, 1, version, v_len);
  if (options.len > 0) p = proto_put_bytes(p, 3, options.data, options.len);
  if (features.data != NULL) {
    size_t url_len = sizeof FEATURES_TYPE_URL - 1;
    size_t value_len = features.len == 0 ? 0 : 1 + proto_varint_len(features.len) + features.len;
    size_t any_len = 1 + proto_varint_len(url_len) + url_len + value_len;
    p = proto_put_header(p, 4, any_len);
    p = proto_put_bytes(p, 1, FEATURES_TYPE_URL, url_len);
    if (features.len > 0) p = proto_put_bytes(p, 2, features.data, features.len);
  }
  /* annotations (5), a map: one entry {key = 1, value = 2}. */
  size_t key_len = sizeof ALLOW_MOUNTS_KEY - 1, value_len = sizeof ALLOW_MOUNTS - 1;
  p = proto_put_header(p, 5, 2 + key_len + 2 + value_len);
  p = proto_put_bytes(p, 1, ALLOW_MOUNTS_KEY, key_len);
  p = proto_put_bytes(p, 2, ALLOW_MOUNTS, value_len);
  return (size_t)(p - out);
}
