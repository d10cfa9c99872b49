/*
 * The control connection's messages (docs/keeper-protocol.md, "The control connection"):
 * length u32 BE (N), a type byte, N-1 bytes of fields each ended by \0. The descriptors that
 * travel with a message are the connection's business (control.c), not the framing's.
 */
#ifndef SKIFF_KEEPER_CONTROL_WIRE_H
#define SKIFF_KEEPER_CONTROL_WIRE_H

#include <stddef.h>

#define CONTROL_MESSAGE_MAX (1u << 20) /* N at most: over it the connection closes */
#define CONTROL_FIELDS_MAX 1024

/*
 * Whether `buf` (len bytes) starts with a whole message: 1 and its size (4 + N) in *size,
 * 0 when more bytes are needed, -1 when the length is 0 or over CONTROL_MESSAGE_MAX.
 */
int control_frame(const unsigned char *buf, size_t len, size_t *size);

/*
 * Splits a whole message's fields (the bytes after the type, `len` of them) into fields[],
 * pointing into `body`. Returns their count, or -1 when the last is not \0-ended or there are
 * over `max`.
 */
int control_fields(const char *body, size_t len, const char **fields, int max);

/*
 * Whether a serving process's message of `type` with `count` fields is well formed:
 * L at least 6 (seq, key, pid file, console, roles, argv[0]...), R 4, C A D 1. 0 when not
 * (an unknown type included).
 */
int control_request_ok(char type, int count);

/*
 * A whole message from the serving process (control_frame's `size` bytes): its type in *type
 * and its fields, checked as a request (control_fields, control_request_ok). Returns the
 * field count, or -1 when it breaks the protocol.
 */
int control_request(const unsigned char *message, size_t size, char *type, const char **fields, int max);

/* A message of `type` with `count` fields, malloc'd, its size in *size; NULL when out of memory or too long. */
unsigned char *control_message(char type, const char *const *fields, int count, size_t *size);

/* A decimal number of the protocol: 0 and the value, or -1 when `text` is not one (or out of long's range). */
int control_number(const char *text, long *out);

#endif
