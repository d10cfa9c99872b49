/* native/containerd-shim/runtime-info.c: -info's RuntimeInfo bytes, and the Any it reads on stdin. */
#include <stdlib.h>

#include "check.h"
#include "runtime-info.h"

static int same(const unsigned char *a, size_t a_len, const unsigned char *b, size_t b_len) {
  if (a_len != b_len || memcmp(a, b, a_len) != 0) {
    for (size_t i = 0; i < a_len; i++) fprintf(stderr, "%02x ", a[i]);
    fprintf(stderr, "\n");
    return 0;
  }
  return 1;
}

static int bytes_are(struct bytes b, const char *s) { return b.len == strlen(s) && memcmp(b.data, s, b.len) == 0; }

/* The annotation every RuntimeInfo ends with: field 5, the map entry {ALLOW_MOUNTS_KEY, ALLOW_MOUNTS}. */
static size_t annotation_len(void) { return 2 + 2 + strlen(ALLOW_MOUNTS_KEY) + 2 + strlen(ALLOW_MOUNTS); }

static int ends_with_annotation(const unsigned char *out, size_t n) {
  size_t key = strlen(ALLOW_MOUNTS_KEY), value = strlen(ALLOW_MOUNTS);
  const unsigned char *a = out + n - annotation_len();
  return a[0] == 0x2a && a[1] == 2 + key + 2 + value && a[2] == 0x0a && a[3] == key &&
         memcmp(a + 4, ALLOW_MOUNTS_KEY, key) == 0 && a[4 + key] == 0x12 && a[5 + key] == value &&
         memcmp(a + 6 + key, ALLOW_MOUNTS, value) == 0;
}

static void encodes_as_proto3(void) {
  /* RuntimeInfo{name "n", version{version "1.2"}}: no options, no features; then the annotation. */
  static const unsigned char plain[] = {0x0a, 1, 'n', 0x12, 5, 0x0a, 3, '1', '.', '2'};
  unsigned char out[256];
  struct bytes none = {NULL, 0};
  size_t n = runtime_info_encode(out, "n", "1.2", none, none);
  CHECK(same(out, n - annotation_len(), plain, sizeof plain));
  CHECK(ends_with_annotation(out, n));
  CHECK_STR(ALLOW_MOUNTS, "bind,overlay");
  CHECK(n <= runtime_info_max(1, 3, 0, 0));

  /* With options (the Any's bytes as given, field 3) and features (an Any, field 4). */
  static const unsigned char opts[] = {0x0a, 1, 't'};
  struct bytes options = {opts, sizeof opts}, features = {(const unsigned char *)"{}", 2};
  n = runtime_info_encode(out, "n", "1.2", options, features);
  size_t url = sizeof FEATURES_TYPE_URL - 1;
  CHECK(n == sizeof plain + 2 + sizeof opts + 2 + (2 + url + 2 + 2) + annotation_len());
  CHECK(ends_with_annotation(out, n));
  CHECK(n <= runtime_info_max(1, 3, sizeof opts, 2));
  CHECK(same(out + sizeof plain, 2 + sizeof opts, (const unsigned char[]){0x1a, 3, 0x0a, 1, 't'}, 5));
  const unsigned char *f = out + sizeof plain + 2 + sizeof opts;
  CHECK(f[0] == 0x22 && f[1] == 2 + url + 4 && f[2] == 0x0a && f[3] == url);
  CHECK(memcmp(f + 4, FEATURES_TYPE_URL, url) == 0);
  CHECK(same(f + 4 + url, 4, (const unsigned char[]){0x12, 2, '{', '}'}, 4));
}

static void sizes_large_fields(void) {
  /* A features JSON past 127 bytes takes a two-byte length, inside and outside its Any. */
  size_t len = 5000;
  unsigned char *json = malloc(len), *out = malloc(runtime_info_max(22, 5, 0, len));
  memset(json, 'x', len);
  struct bytes none = {NULL, 0}, features = {json, len};
  size_t n = runtime_info_encode(out, "io.containerd.skiff.v2", "0.1.0", none, features);
  CHECK(n <= runtime_info_max(22, 5, 0, len));
  CHECK(n == 24 + 9 + 1 + 2 + (2 + sizeof FEATURES_TYPE_URL - 1 + 1 + 2 + len) + annotation_len());
  free(json);
  free(out);
}

static void reads_the_options(void) {
  /* Any{type_url "containerd.runc.v1.Options", value Options{binary_name "crun", systemd_cgroup true}} */
  static const unsigned char value[] = {0x32, 4, 'c', 'r', 'u', 'n', 0x48, 1};
  unsigned char any[64], *p = any;
  *p++ = 0x0a, *p++ = (unsigned char)strlen(RUNC_OPTIONS_TYPE);
  memcpy(p, RUNC_OPTIONS_TYPE, strlen(RUNC_OPTIONS_TYPE)), p += strlen(RUNC_OPTIONS_TYPE);
  *p++ = 0x12, *p++ = sizeof value;
  memcpy(p, value, sizeof value), p += sizeof value;
  struct bytes type_url, v, name;
  CHECK(any_decode(any, (size_t)(p - any), &type_url, &v) == 0);
  CHECK(type_url_is(type_url, RUNC_OPTIONS_TYPE));
  CHECK(v.len == sizeof value);
  CHECK(runc_options_binary_name(v.data, v.len, &name) == 0);
  CHECK(bytes_are(name, "crun"));
  /* Options without binary_name (fields of every wire type around it). */
  static const unsigned char other[] = {0x08, 1, 0x1a, 1, '/', 0x25, 1, 2, 3, 4, 0x09, 1, 2, 3, 4, 5, 6, 7, 8};
  CHECK(runc_options_binary_name(other, sizeof other, &name) == 0);
  CHECK(name.len == 0);
  /* An empty Any: nothing in either field. */
  CHECK(any_decode(any, 0, &type_url, &v) == 0);
  CHECK(type_url.len == 0 && v.len == 0);
}

static void knows_type_urls(void) {
  struct bytes plain = {(const unsigned char *)"containerd.runc.v1.Options", 26};
  struct bytes prefixed = {(const unsigned char *)"type.googleapis.com/containerd.runc.v1.Options", 46};
  struct bytes longer = {(const unsigned char *)"xcontainerd.runc.v1.Options", 27};
  struct bytes shorter = {(const unsigned char *)"runc.v1.Options", 15};
  CHECK(type_url_is(plain, RUNC_OPTIONS_TYPE));
  CHECK(type_url_is(prefixed, RUNC_OPTIONS_TYPE));
  CHECK(!type_url_is(longer, RUNC_OPTIONS_TYPE));
  CHECK(!type_url_is(shorter, RUNC_OPTIONS_TYPE));
}

static void refuses_what_is_not_protobuf(void) {
  struct bytes t, v;
  static const unsigned char truncated[] = {0x0a, 9, 'a'}, bad_wire[] = {0x0f, 1}, zero_field[] = {0x00, 1},
                             long_varint[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
                             short_fixed[] = {0x0d, 1, 2};
  CHECK(any_decode(truncated, sizeof truncated, &t, &v) == -1);
  CHECK(any_decode(bad_wire, sizeof bad_wire, &t, &v) == -1);
  CHECK(any_decode(zero_field, sizeof zero_field, &t, &v) == -1);
  CHECK(any_decode(long_varint, sizeof long_varint, &t, &v) == -1);
  CHECK(any_decode(short_fixed, sizeof short_fixed, &t, &v) == -1);
  CHECK(any_decode((const unsigned char *)"garbage", 7, &t, &v) == -1);
}

/* An Any{type_url, value} of short fields, into buf; its length. */
static size_t any_of(unsigned char *buf, const char *type_url, const unsigned char *value, size_t value_len) {
  unsigned char *p = buf;
  *p++ = 0x0a, *p++ = (unsigned char)strlen(type_url);
  memcpy(p, type_url, strlen(type_url)), p += strlen(type_url);
  *p++ = 0x12, *p++ = (unsigned char)value_len;
  memcpy(p, value, value_len), p += value_len;
  return (size_t)(p - buf);
}

/* What `-info` asks features of: runc, binary_name, or a one-line refusal; another type is named. */
static void chooses_the_runtime(void) {
  char binary[16];
  struct bytes type_url;
  const char *why = NULL;
  unsigned char any[128];
  CHECK(info_runtime_binary(NULL, 0, binary, sizeof binary, &type_url, &why) == 0);
  CHECK_STR(binary, "runc");
  static const unsigned char crun[] = {0x32, 4, 'c', 'r', 'u', 'n'};
  size_t n = any_of(any, "types.containerd.io/" RUNC_OPTIONS_TYPE, crun, sizeof crun);
  CHECK(info_runtime_binary(any, n, binary, sizeof binary, &type_url, &why) == 0);
  CHECK_STR(binary, "crun");
  n = any_of(any, RUNTIME_OPTIONS_TYPE, (const unsigned char *)"x", 1);
  CHECK(info_runtime_binary(any, n, binary, sizeof binary, &type_url, &why) == 0);
  CHECK_STR(binary, "runc");
  n = any_of(any, "other.Options", (const unsigned char *)"", 0);
  CHECK(info_runtime_binary(any, n, binary, sizeof binary, &type_url, &why) == 1);
  CHECK(bytes_are(type_url, "other.Options"));
  static const unsigned char nul[] = {0x32, 2, 'a', 0}, control[] = {0x32, 2, 'a', '\n'},
                             long_name[] = {0x32, 16, 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a',
                                            'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'};
  n = any_of(any, RUNC_OPTIONS_TYPE, nul, sizeof nul);
  CHECK(info_runtime_binary(any, n, binary, sizeof binary, &type_url, &why) == -1);
  CHECK_STR(why, "binary_name holds a NUL byte");
  n = any_of(any, RUNC_OPTIONS_TYPE, control, sizeof control);
  CHECK(info_runtime_binary(any, n, binary, sizeof binary, &type_url, &why) == -1);
  CHECK_STR(why, "binary_name holds a control character");
  n = any_of(any, RUNC_OPTIONS_TYPE, long_name, sizeof long_name);
  CHECK(info_runtime_binary(any, n, binary, sizeof binary, &type_url, &why) == -1);
  CHECK_STR(why, "binary_name is longer than PATH_MAX");
  CHECK(info_runtime_binary((const unsigned char *)"garbage", 7, binary, sizeof binary, &type_url, &why) == -1);
  CHECK_STR(why, "the runtime options on stdin are not a google.protobuf.Any");
}

int main(void) {
  encodes_as_proto3();
  sizes_large_fields();
  reads_the_options();
  knows_type_urls();
  refuses_what_is_not_protobuf();
  chooses_the_runtime();
  return CHECK_RESULT;
}
