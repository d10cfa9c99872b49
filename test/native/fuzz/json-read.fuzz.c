/*
 * The JSON reader (native/common/json-read.c) on hostile documents: config.json and the task
 * records are written by others. Input: one byte choosing the output's size (1..256), a path of
 * member names separated by '/' up to the first '\n' (at most 4 names), then the document.
 * The same document read into room for it all must agree: FOUND with a string shorter than the
 * small room is the same string, a longer one TOO_LONG, any other result the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json-read.h"

#define PATH_MAX_NAMES 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
  if (len < 2) return 0;
  size_t small = (size_t)data[0] + 1;
  const uint8_t *nl = memchr(data + 1, '\n', len - 1);
  if (nl == NULL) return 0;
  /* The path, its names NUL-ended in a copy. */
  size_t path_len = (size_t)(nl - (data + 1));
  char *path_text = malloc(path_len + 1);
  memcpy(path_text, data + 1, path_len);
  path_text[path_len] = '\0';
  const char *path[PATH_MAX_NAMES];
  size_t depth = 0;
  for (char *name = path_text; depth < PATH_MAX_NAMES;) {
    path[depth++] = name;
    char *slash = strchr(name, '/');
    if (slash == NULL) break;
    *slash = '\0';
    name = slash + 1;
  }
  /* The document: a copy exactly its length, so a read past it is ASan's to report. */
  size_t doc_len = len - (size_t)(nl + 1 - data);
  char *doc = malloc(doc_len ? doc_len : 1);
  memcpy(doc, nl + 1, doc_len);

  char *out = malloc(small), *whole = malloc(doc_len + 1);
  enum json_result r = json_string_at(doc, doc_len, path, depth, out, small);
  enum json_result w = json_string_at(doc, doc_len, path, depth, whole, doc_len + 1);
  /* Room for the whole document always holds its string (a string decodes no longer than its text). */
  if (w == JSON_TOO_LONG) abort();
  if (strlen(out) >= small || strlen(whole) > doc_len) abort();
  if (w == JSON_FOUND && strlen(whole) < small) {
    if (r != JSON_FOUND || strcmp(out, whole) != 0) abort();
  } else if (w == JSON_FOUND) {
    if (r != JSON_TOO_LONG || out[0] != '\0') abort();
  } else if (r != w || out[0] != '\0') {
    abort();
  }
  (void)json_result_text(r);
  free(whole);
  free(out);
  free(doc);
  free(path_text);
  return 0;
}
