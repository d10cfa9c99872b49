/*
 * Drives native/keeper/ttrpc-wire.c from the command line for ttrpc-wire.test.ts:
 *   method HEX            the method name read from a ttrpc.Request payload
 *   ok HEX                1 when a ttrpc.Response payload is a success, else 0
 *   status ID CODE TEXT   the UNAVAILABLE-style Response frame, in hex
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ttrpc-wire.h"

static size_t unhex(const char *hex, unsigned char *out, size_t size) {
  size_t n = 0;
  for (; hex[0] && hex[1] && n < size; hex += 2) {
    unsigned int byte;
    if (sscanf(hex, "%2x", &byte) != 1) break;
    out[n++] = (unsigned char)byte;
  }
  return n;
}

int main(int argc, char **argv) {
  static unsigned char bytes[1 << 16];
  if (argc == 3 && strcmp(argv[1], "method") == 0) {
    /* Exactly as long as the input: a read past it is AddressSanitizer's to report. */
    size_t n = unhex(argv[2], bytes, sizeof bytes);
    unsigned char *exact = malloc(n ? n : 1);
    memcpy(exact, bytes, n);
    char method[METHOD_MAX];
    ttrpc_request_method(exact, n, method);
    printf("%s\n", method);
    free(exact);
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "ok") == 0) {
    size_t n = unhex(argv[2], bytes, sizeof bytes);
    unsigned char *exact = malloc(n ? n : 1);
    memcpy(exact, bytes, n);
    printf("%d\n", ttrpc_response_ok(exact, n));
    free(exact);
    return 0;
  }
  if (argc == 5 && strcmp(argv[1], "status") == 0) {
    size_t len = 0;
    unsigned char *frame = ttrpc_status_frame((uint32_t)strtoul(argv[2], NULL, 10),
                                              (uint32_t)strtoul(argv[3], NULL, 10), argv[4], &len);
    for (size_t i = 0; i < len; i++) printf("%02x", frame[i]);
    printf("\n");
    free(frame);
    return 0;
  }
  fprintf(stderr, "usage: ttrpc-wire-driver method HEX | ok HEX | status ID CODE TEXT\n");
  return 2;
}
