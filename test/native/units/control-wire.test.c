/*
 * native/keeper/control-wire.c: a message is whole only with all its bytes; a length of 0 or
 * over 1 MiB is refused; fields split at each \0 and an unended last field is refused; each
 * request type's field count; a message written and read back; decimal numbers. Inputs are
 * copied to buffers exactly their length, so a read past them is AddressSanitizer's to report.
 */
#include <stdlib.h>

#include "check.h"
#include "control-wire.h"

static char *exact(const void *bytes, size_t len) {
  char *copy = malloc(len ? len : 1);
  if (len) memcpy(copy, bytes, len);
  return copy;
}

static int frame_of(const unsigned char *bytes, size_t len, size_t *size) {
  unsigned char *copy = (unsigned char *)exact(bytes, len);
  int r = control_frame(copy, len, size);
  free(copy);
  return r;
}

int main(void) {
  size_t size = 0;
  const unsigned char whole[] = {0, 0, 0, 3, 'A', 'k', 0};
  CHECK(frame_of(whole, sizeof whole, &size) == 1 && size == 7);
  for (size_t cut = 0; cut < sizeof whole; cut++) CHECK(frame_of(whole, cut, &size) == 0);
  const unsigned char zero[] = {0, 0, 0, 0, 'A'};
  CHECK(frame_of(zero, sizeof zero, &size) == -1);
  const unsigned char big[] = {0, 0x10, 0, 1};
  CHECK(frame_of(big, sizeof big, &size) == -1);
  const unsigned char max[] = {0, 0x10, 0, 0};
  CHECK(frame_of(max, sizeof max, &size) == 0);

  const char *fields[8];
  char *body = exact("1\0key\0\0", 7);
  CHECK(control_fields(body, 7, fields, 8) == 3);
  CHECK_STR(fields[0], "1");
  CHECK_STR(fields[1], "key");
  CHECK_STR(fields[2], "");
  CHECK(control_fields(body, 7, fields, 2) == -1);
  free(body);
  body = exact("1\0key", 5);
  CHECK(control_fields(body, 5, fields, 8) == -1);
  free(body);
  CHECK(control_fields("", 0, fields, 8) == 0);

  CHECK(control_request_ok('L', 6) && control_request_ok('L', 9) && !control_request_ok('L', 5));
  CHECK(control_request_ok('R', 4) && !control_request_ok('R', 3));
  CHECK(control_request_ok('S', 3) && !control_request_ok('S', 2) && !control_request_ok('S', 4));
  CHECK(control_request_ok('C', 1) && control_request_ok('A', 1) && control_request_ok('D', 1));
  CHECK(control_request_ok('Q', 0) && !control_request_ok('Q', 1));
  CHECK(!control_request_ok('D', 2) && !control_request_ok('E', 5) && !control_request_ok('x', 1));

  /* A whole request as control.c takes it: type and fields, or -1 (a reply type, a wrong count). */
  char type = 0;
  const unsigned char resize[] = {0, 0, 0, 10, 'R', '7', 0, 'k', 0, '8', '0', 0, '2', 0};
  CHECK(control_request(resize, sizeof resize, &type, fields, 8) == 4 && type == 'R');
  CHECK_STR(fields[2], "80");
  const unsigned char reply[] = {0, 0, 0, 3, 'E', 'k', 0};
  CHECK(control_request(reply, sizeof reply, &type, fields, 8) == -1);
  const unsigned char short_resize[] = {0, 0, 0, 5, 'R', '7', 0, 'k', 0};
  CHECK(control_request(short_resize, sizeof short_resize, &type, fields, 8) == -1);

  const char *const out[] = {"t1", "42", ""};
  unsigned char *message = control_message('E', out, 3, &size);
  CHECK(message != NULL && size == 4 + 1 + 3 + 3 + 1);
  size_t whole_size = 0;
  CHECK(frame_of(message, size, &whole_size) == 1 && whole_size == size);
  CHECK(message[4] == 'E');
  CHECK(control_fields((const char *)message + 5, size - 5, fields, 8) == 3);
  CHECK_STR(fields[0], "t1");
  CHECK_STR(fields[1], "42");
  CHECK_STR(fields[2], "");
  free(message);

  long v = 0;
  CHECK(control_number("-1", &v) == 0 && v == -1);
  CHECK(control_number("1234", &v) == 0 && v == 1234);
  CHECK(control_number("", &v) == -1 && control_number("12x", &v) == -1);
  CHECK(control_number("99999999999999999999999", &v) == -1);
  return CHECK_RESULT;
}
