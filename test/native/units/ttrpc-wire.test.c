/*
 * native/keeper/ttrpc-wire.c: the method of a ttrpc.Request wherever its fields are, no method
 * from bytes that are not a Request, a Response's success, and the UNAVAILABLE Response the
 * keeper writes (the bytes protobuf gives Response{status: Status{code, message}}). Every input
 * is copied to a buffer exactly its length, so a read past it is AddressSanitizer's to report.
 */
#include <stdlib.h>

#include "check.h"
#include "ttrpc-wire.h"

#define BYTES(...) ((const unsigned char[]){__VA_ARGS__}), sizeof((const unsigned char[]){__VA_ARGS__})

static unsigned char *exact(const unsigned char *bytes, size_t len) {
  unsigned char *copy = malloc(len ? len : 1);
  if (len) memcpy(copy, bytes, len);
  return copy;
}

static const char *method_of(const unsigned char *bytes, size_t len) {
  static char method[METHOD_MAX];
  unsigned char *copy = exact(bytes, len);
  ttrpc_request_method(copy, len, method);
  free(copy);
  return method;
}

static int ok_of(const unsigned char *bytes, size_t len) {
  unsigned char *copy = exact(bytes, len);
  int ok = ttrpc_response_ok(copy, len);
  free(copy);
  return ok;
}

static void methods(void) {
  /* service "containerd.task.v2.Task", method "Wait", payload "payload" */
  CHECK_STR(method_of(BYTES(0x0a, 0x17, 'c', 'o', 'n', 't', 'a', 'i', 'n', 'e', 'r', 'd', '.', 't', 'a', 's', 'k', '.',
                            'v', '2', '.', 'T', 'a', 's', 'k', 0x12, 0x04, 'W', 'a', 'i', 't', 0x1a, 0x07, 'p', 'a',
                            'y', 'l', 'o', 'a', 'd')),
            "Wait");
  /* metadata {k: v}, timeout_nano 5e9, a payload holding a field 2 (not the method), service "s", then method */
  CHECK_STR(method_of(BYTES(0x2a, 0x06, 0x0a, 0x01, 'k', 0x12, 0x01, 'v', 0x20, 0x80, 0xe4, 0x97, 0xd0, 0x12, 0x1a,
                            0x05, 0x12, 0x03, 'A', 'B', 'C', 0x0a, 0x01, 's', 0x12, 0x06, 'C', 'r', 'e', 'a', 't',
                            'e')),
            "Create");
  CHECK_STR(method_of(NULL, 0), "");
  /* A method of 48 bytes: longer than any Task method. */
  unsigned char long_method[2 + 48];
  long_method[0] = 0x12;
  long_method[1] = 48;
  memset(long_method + 2, 'M', 48);
  CHECK_STR(method_of(long_method, sizeof long_method), "");
}

static void not_requests(void) {
  CHECK_STR(method_of(BYTES(0x12, 0xff, 0xff, 0xff, 0xff, 0x0f)), ""); /* a length past the end */
  CHECK_STR(method_of(BYTES(0x12, 0x05, 'A')), "");                     /* a method cut short */
  unsigned char varint11[11];
  memset(varint11, 0x80, sizeof varint11);
  CHECK_STR(method_of(varint11, sizeof varint11), ""); /* a varint of 11 bytes */
  CHECK_STR(method_of(BYTES(0x09, 0x01, 0x02, 0x03, 0x04)), ""); /* a fixed64 cut short */
  CHECK_STR(method_of(BYTES(0x1b)), "");                         /* a group (wire type 3) */
  CHECK_STR(method_of(BYTES(0x82)), "");                         /* a key cut short */
}

static void responses(void) {
  CHECK(ok_of(BYTES(0x12, 0x01, 'x')) == 1);             /* no status */
  CHECK(ok_of(BYTES(0x0a, 0x00, 0x12, 0x01, 'x')) == 1); /* Status{code: 0} */
  CHECK(ok_of(BYTES(0x0a, 0x0d, 0x08, 0x05, 0x12, 0x09, 'n', 'o', 't', ' ', 'f', 'o', 'u', 'n', 'd', 0x12, 0x01,
                    'x')) == 0); /* NOT_FOUND */
  CHECK(ok_of(BYTES(0x0a, 0xff)) == 0); /* a status cut short */
  /* As protobuf reads them: statuses merge, and the last code counts. */
  CHECK(ok_of(BYTES(0x0a, 0x02, 0x08, 0x05, 0x0a, 0x02, 0x08, 0x00)) == 1); /* NOT_FOUND, then OK */
  CHECK(ok_of(BYTES(0x0a, 0x02, 0x08, 0x00, 0x0a, 0x00)) == 1);             /* OK, then a status without a code */
  CHECK(ok_of(BYTES(0x0a, 0x00, 0x0a, 0x02, 0x08, 0x0e)) == 0);             /* an empty status, then UNAVAILABLE */
  CHECK(ok_of(BYTES(0x0a, 0x04, 0x08, 0x00, 0x08, 0x05)) == 0);             /* OK then NOT_FOUND in one status */
  CHECK(ok_of(BYTES(0x08, 0x01)) == 0);                                     /* a status that is no message */
  CHECK(ok_of(BYTES(0x0a, 0x02, 0x0a, 0x00)) == 0);                         /* a code that is no varint */
}

static void unavailable(void) {
  size_t len = 0;
  unsigned char *frame = ttrpc_status_frame(4294967295u, RPC_UNAVAILABLE, "gone", &len);
  static const unsigned char expected[] = {
      0x00, 0x00, 0x00, 0x0a, 0xff, 0xff, 0xff, 0xff, TTRPC_RESPONSE, 0x00, /* header: length, stream, type, flags */
      0x0a, 0x08, 0x08, 0x0e, 0x12, 0x04, 'g',  'o',  'n',  'e'};          /* Response{status{14, "gone"}} */
  CHECK(len == sizeof expected && memcmp(frame, expected, len) == 0);
  struct ttrpc_header h;
  ttrpc_header_read(frame, &h);
  CHECK(h.length == len - TTRPC_HEADER && h.stream_id == 4294967295u && h.type == TTRPC_RESPONSE && h.flags == 0);
  CHECK(ok_of(frame + TTRPC_HEADER, len - TTRPC_HEADER) == 0);
  free(frame);
  /* A message of 200 bytes: two-byte lengths. */
  char message[201];
  memset(message, 'm', 200);
  message[200] = '\0';
  frame = ttrpc_status_frame(1, RPC_UNAVAILABLE, message, &len);
  CHECK(len == TTRPC_HEADER + 3 + 2 + 3 + 200);
  CHECK(frame[10] == 0x0a && frame[11] == 0xcd && frame[12] == 0x01); /* status of 205 bytes */
  CHECK(frame[15] == 0x12 && frame[16] == 0xc8 && frame[17] == 0x01); /* message of 200 bytes */
  free(frame);
}

int main(void) {
  methods();
  not_requests();
  responses();
  unavailable();
  return CHECK_RESULT;
}
