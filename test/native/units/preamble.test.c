/* native/common/preamble.c: the connection preamble's bytes (docs/keeper-protocol.md). */
#include <stdlib.h>

#include "check.h"
#include "preamble.h"

int main(void) {
  unsigned char out[64];
  static const char fields[] = "task=t1";
  size_t n = preamble_encode(out, sizeof out, ROLE_FORGET, fields, sizeof fields);
  static const unsigned char forget[] = {0xff, 'S', 'K', 'F', 1, 3, 0, 8, 't', 'a', 's', 'k', '=', 't', '1', 0};
  CHECK(n == sizeof forget);
  CHECK(memcmp(out, forget, sizeof forget) == 0);
  /* No fields: the head alone. */
  CHECK(preamble_encode(out, PREAMBLE_HEAD, ROLE_RELAY, NULL, 0) == PREAMBLE_HEAD);
  CHECK(out[5] == ROLE_RELAY && out[6] == 0 && out[7] == 0);
  /* The length is big-endian over two bytes: the most the protocol allows fits, one more does not. */
  size_t size = PREAMBLE_HEAD + PREAMBLE_FIELDS_MAX + 1;
  unsigned char *big = malloc(size);
  char *many = calloc(PREAMBLE_FIELDS_MAX + 1, 1);
  CHECK(big != NULL && many != NULL);
  CHECK(preamble_encode(big, size, ROLE_CONTROL, many, PREAMBLE_FIELDS_MAX) == PREAMBLE_HEAD + PREAMBLE_FIELDS_MAX);
  CHECK(big[6] == 0xff && big[7] == 0xff);
  CHECK(preamble_encode(big, size, ROLE_CONTROL, many, PREAMBLE_FIELDS_MAX + 1) == 0);
  free(big);
  free(many);
  /* Too small an output, or a role past one byte: nothing written. */
  CHECK(preamble_encode(out, PREAMBLE_HEAD + sizeof fields - 1, ROLE_FORGET, fields, sizeof fields) == 0);
  CHECK(preamble_encode(out, sizeof out, 256, fields, sizeof fields) == 0);
  return CHECK_RESULT;
}
