/* native/containerd-shim/delete-response.c: proto3's bytes for task.v2.DeleteResponse. */
#include <stdint.h>

#include "check.h"
#include "delete-response.h"

static int same(const unsigned char *a, size_t a_len, const unsigned char *b, size_t b_len) {
  if (a_len != b_len || memcmp(a, b, a_len) != 0) {
    for (size_t i = 0; i < a_len; i++) fprintf(stderr, "%02x ", a[i]);
    fprintf(stderr, "\n");
    return 0;
  }
  return 1;
}

int main(void) {
  unsigned char out[DELETE_RESPONSE_MAX];
  /* pid 4242, exit_status 137, exited_at {1700000000, 123456789} */
  static const unsigned char full[] = {0x08, 0x92, 0x21, 0x10, 0x89, 0x01, 0x1a, 0x0b, 0x08, 0x80,
                                       0xe2, 0xcf, 0xaa, 0x06, 0x10, 0x95, 0x9a, 0xef, 0x3a};
  size_t n = delete_response_encode(out, 4242, 137, 1700000000, 123456789);
  CHECK(same(out, n, full, sizeof full));
  /* A pid of 0 and nanos of 0 are left out, as proto3 leaves out defaults. */
  static const unsigned char no_pid[] = {0x10, 0x89, 0x01, 0x1a, 0x06, 0x08, 0x80, 0xe2, 0xcf, 0xaa, 0x06};
  n = delete_response_encode(out, 0, 137, 1700000000, 0);
  CHECK(same(out, n, no_pid, sizeof no_pid));
  /* The largest of every field fits. */
  n = delete_response_encode(out, UINT32_MAX, UINT32_MAX, INT64_MIN, INT32_MIN);
  CHECK(n <= DELETE_RESPONSE_MAX);
  CHECK(n == 5 + 1 + 5 + 1 + 1 + 1 + 1 + 10 + 1 + 10 + 0);
  return CHECK_RESULT;
}
