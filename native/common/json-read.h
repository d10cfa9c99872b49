/*
 * Reading one string out of a JSON document (RFC 8259), the little the native programs need of
 * config.json (annotations) and of the task directory's records (docs/on-disk-layout.md). The
 * whole document is checked as it is walked, so a key inside a string or in another object is
 * never taken for the one asked for.
 */
#ifndef SKIFF_JSON_READ_H
#define SKIFF_JSON_READ_H

#include <stddef.h>

enum json_result {
  JSON_FOUND = 0,     /* out holds the value, UTF-8, NUL-terminated */
  JSON_ABSENT = 1,    /* no such member (or a member on the way is not an object) */
  JSON_MALFORMED = 2, /* the document is not JSON (or nests deeper than JSON_MAX_DEPTH) */
  JSON_NOT_STRING = 3, /* the member is there but is not a string, or holds \u0000 */
  JSON_TOO_LONG = 4,  /* the string does not fit in out */
};

#define JSON_MAX_DEPTH 64

/*
 * The string at `path` (depth member names from the top-level object down) in json[0..len).
 * As encoding/json (containerd, runc) reads it: the last of duplicate members wins, a lone
 * surrogate escape reads as U+FFFD.
 */
enum json_result json_string_at(const char *json, size_t len, const char *const *path, size_t depth, char *out,
                                size_t size);

/* One word for a result, for error messages ("malformed", "not a string", ...). */
const char *json_result_text(enum json_result result);

#endif
