/*
 * The keeper's control protocol decoder (native/keeper/control-wire.c) on hostile bytes, as
 * control.c reads a connection: whole messages cut off the front while control_frame finds
 * them, each split into fields and checked as a request, its numbers read. A message that
 * decodes must encode back to its very bytes (control_message), or the two would disagree on
 * what was sent. test/native/fuzz/corpus/control-wire/ holds seeds; test/vectors/control/ adds more.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "control-wire.h"

static const char *fields[CONTROL_FIELDS_MAX];

static void message(const unsigned char *bytes, size_t size) {
  char type;
  int count = control_request(bytes, size, &type, fields, CONTROL_FIELDS_MAX);
  if (count < 0) {
    /* Not a request the keeper takes; still, any \0-ended body splits, and encodes back. */
    count = control_fields((const char *)bytes + 5, size - 5, fields, CONTROL_FIELDS_MAX);
    if (count < 0) return;
  }
  long number;
  for (int i = 0; i < count; i++) (void)control_number(fields[i], &number);
  size_t again_size = 0;
  unsigned char *again = control_message((char)bytes[4], fields, count, &again_size);
  if (again == NULL || again_size != size || memcmp(again, bytes, size) != 0) abort();
  free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
  /* control.c's buffer: the bytes as they came (a copy, so a read past them is ASan's). */
  unsigned char *buf = malloc(len ? len : 1);
  if (buf == NULL) return 0;
  memcpy(buf, data, len);
  size_t off = 0, size = 0;
  while (control_frame(buf + off, len - off, &size) == 1) {
    message(buf + off, size);
    off += size;
  }
  free(buf);
  return 0;
}
