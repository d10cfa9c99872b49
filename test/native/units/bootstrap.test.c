/* native/containerd-shim/bootstrap.c: start's BootstrapParams on stdin and its BootstrapResult. */
#include <stdlib.h>

#include "bootstrap.h"
#include "check.h"

/* A length-delimited field of short bytes at p; the byte after it. */
static unsigned char *field(unsigned char *p, unsigned number, const char *text) {
  *p++ = (unsigned char)(number << 3 | 2), *p++ = (unsigned char)strlen(text);
  memcpy(p, text, strlen(text));
  return p + strlen(text);
}

/* BootstrapParams as containerd 2.3.4 marshals it: every field, the log level a negative enum (ten bytes). */
static size_t params(unsigned char *buf, const char *id, const char *ns) {
  unsigned char *p = buf;
  p = field(p, 1, id);
  p = field(p, 2, ns);
  static const unsigned char debug[] = {0x18, 0xfc, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  memcpy(p, debug, sizeof debug), p += sizeof debug;
  p = field(p, 4, "v2.3.4");
  p = field(p, 5, "/run/containerd/containerd.sock.ttrpc");
  p = field(p, 6, "/run/containerd/containerd.sock");
  p = field(p, 7, "/usr/bin/containerd");
  /* extensions: Extension{value Any{type_url, value}} */
  unsigned char any[64], *a = any;
  a = field(a, 1, "runtimeoptions.v1.Options");
  a = field(a, 2, "\x0a\x01x");
  unsigned char ext[80], *e = ext;
  *e++ = 0x0a, *e++ = (unsigned char)(a - any);
  memcpy(e, any, (size_t)(a - any)), e += a - any;
  *p++ = 0x42, *p++ = (unsigned char)(e - ext);
  memcpy(p, ext, (size_t)(e - ext)), p += e - ext;
  p = field(p, 9, "/run/containerd/s");
  return (size_t)(p - buf);
}

static void takes_params_of_this_start(void) {
  unsigned char buf[512];
  struct bootstrap_params out;
  size_t n = params(buf, "c1", "default");
  CHECK(bootstrap_params_of(buf, n, "c1", "default", &out) == 1);
  CHECK(out.instance_id.len == 2 && memcmp(out.instance_id.data, "c1", 2) == 0);
  CHECK(out.namespace_.len == 7 && memcmp(out.namespace_.data, "default", 7) == 0);
  /* Another task's or namespace's params are an older daemon's bytes, never taken. */
  CHECK(bootstrap_params_of(buf, n, "c2", "default", &out) == 0);
  CHECK(bootstrap_params_of(buf, n, "c1", "k8s.io", &out) == 0);
  CHECK(bootstrap_params_of(buf, n, "c", "default", &out) == 0);
  CHECK(bootstrap_params_of(buf, n, "", "", &out) == 0);
  /* proto3's last value of a field wins. */
  unsigned char twice[600], *p = field(twice, 1, "other");
  memcpy(p, buf, n);
  CHECK(bootstrap_params_of(twice, (size_t)(p - twice) + n, "c1", "default", &out) == 1);
}

static void leaves_what_older_daemons_send(void) {
  unsigned char buf[128] = {0}, *p;
  struct bootstrap_params out;
  /* Nothing (1.6 without options, 2.2's -info), and 2.2's runtime options: an Any, which decodes too. */
  CHECK(bootstrap_params_of(buf, 0, "c1", "default", &out) == 0);
  p = field(buf, 1, "containerd.runc.v1.Options");
  p = field(p, 2, "\x32\x04runc");
  CHECK(bootstrap_params_decode(buf, (size_t)(p - buf), &out) == 0);
  CHECK(bootstrap_params_of(buf, (size_t)(p - buf), "c1", "default", &out) == 0);
  /* An id of another wire type is not the id. */
  static const unsigned char varint_id[] = {0x08, 0x05, 0x12, 0x07, 'd', 'e', 'f', 'a', 'u', 'l', 't'};
  CHECK(bootstrap_params_of(varint_id, sizeof varint_id, "c1", "default", &out) == 0);
}

static void refuses_what_is_not_protobuf(void) {
  struct bootstrap_params out;
  static const unsigned char truncated[] = {0x0a, 9, 'c', '1'}, group[] = {0x0b, 0x0c}, zero[] = {0x00, 1},
                             huge_field[] = {0x82, 0x80, 0x80, 0x80, 0x20, 0}, bad[] = {0xff};
  CHECK(bootstrap_params_decode(truncated, sizeof truncated, &out) == -1);
  CHECK(bootstrap_params_decode(group, sizeof group, &out) == -1);
  CHECK(bootstrap_params_decode(zero, sizeof zero, &out) == -1);
  CHECK(bootstrap_params_decode(huge_field, sizeof huge_field, &out) == -1);
  CHECK(bootstrap_params_decode(bad, sizeof bad, &out) == -1);
  CHECK(bootstrap_params_of(truncated, sizeof truncated, "c1", "default", &out) == 0);
  /* A plain address (what an older shim printed, were it fed back) is not protobuf either. */
  const char *text = "unix:///run/containerd/s/x";
  CHECK(bootstrap_params_decode((const unsigned char *)text, strlen(text), &out) == -1);
}

static void encodes_the_result(void) {
  const char *address = "unix:///run/containerd/skiff/k-1.sock";
  unsigned char out[128];
  size_t n = bootstrap_result_encode(out, address), len = strlen(address);
  CHECK(n <= bootstrap_result_max(len));
  CHECK(n == 2 + 2 + len + 7);
  CHECK(out[0] == 0x08 && out[1] == BOOTSTRAP_VERSION && out[2] == 0x12 && out[3] == len);
  CHECK(memcmp(out + 4, address, len) == 0);
  CHECK(out[4 + len] == 0x1a && out[5 + len] == 5 && memcmp(out + 6 + len, "ttrpc", 5) == 0);
  /* An address past 127 bytes takes a two-byte length. */
  char longer[200];
  memset(longer, 'a', sizeof longer - 1);
  longer[sizeof longer - 1] = '\0';
  unsigned char *big = malloc(bootstrap_result_max(strlen(longer)));
  n = bootstrap_result_encode(big, longer);
  CHECK(n <= bootstrap_result_max(strlen(longer)) && n == 2 + 3 + 199 + 7);
  CHECK(big[3] == ((199 & 0x7f) | 0x80) && big[4] == 1);
  free(big);
}

int main(void) {
  takes_params_of_this_start();
  leaves_what_older_daemons_send();
  refuses_what_is_not_protobuf();
  encodes_the_result();
  return CHECK_RESULT;
}
