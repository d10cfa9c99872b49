/* native/common/preamble.c: the connection preamble's head (docs/keeper-protocol.md). */
#include "check.h"
#include "preamble.h"

int main(void) {
  unsigned char head[PREAMBLE_HEAD];
  /* `delete`'s forget of t1: "task=t1\0", 8 bytes of fields. */
  CHECK(preamble_head(head, ROLE_FORGET, 8) == 0);
  static const unsigned char forget[] = {0xff, 'S', 'K', 'F', 1, 3, 0, 8};
  CHECK(memcmp(head, forget, sizeof forget) == 0);
  /* The length is big-endian over two bytes: the most the protocol allows fits, one more does not. */
  CHECK(preamble_head(head, ROLE_CONTROL, 0x1234) == 0);
  CHECK(head[5] == ROLE_CONTROL && head[6] == 0x12 && head[7] == 0x34);
  CHECK(preamble_head(head, ROLE_RELAY, PREAMBLE_FIELDS_MAX) == 0);
  CHECK(head[6] == 0xff && head[7] == 0xff);
  memset(head, 0, sizeof head);
  CHECK(preamble_head(head, ROLE_RELAY, PREAMBLE_FIELDS_MAX + 1) == -1);
  /* A role past one byte cannot be said either; nothing is written then. */
  CHECK(preamble_head(head, 256, 8) == -1);
  CHECK(head[0] == 0);
  return CHECK_RESULT;
}
