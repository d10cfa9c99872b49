/*
 * The shared control vectors (test/vectors/control/, README there) through the keeper's decoder
 * as control.c drives it: whole messages cut off the front (control_frame), their fields
 * (control_fields), the keeper's judgment of each as a request (control_request), what is left,
 * and where the protocol breaks; each message written back by control_message must be its very
 * bytes. The same files hold the TypeScript side (test/adapters/shim/outbound/keeper/control-vectors.test.ts).
 * argv[1]: the vectors' directory.
 */
#include "check.h"
#include "control-wire.h"
#include "vectors.h"

#define SMALL 4096

static void say(struct vec_bytes *b, const char *text) {
  vec_put(b, (const unsigned char *)text, strlen(text));
}

static void say_type(struct vec_bytes *b, unsigned char type) {
  char text[16];
  if (type > 0x20 && type < 0x7f) snprintf(text, sizeof text, "message %c\n", type);
  else snprintf(text, sizeof text, "message 0x%02x\n", type);
  say(b, text);
}

/* What the keeper makes of input[0..len) read as two reads cut at `cut`, as the vectors' lines. */
static void decode(const unsigned char *input, size_t len, size_t cut, struct vec_bytes *o) {
  static const char *fields[1 << 20];
  unsigned char *buf = malloc(len ? len : 1); /* control.c's buffer, exactly as long as needed */
  size_t held = 0, size = 0, reads[2][2] = {{0, cut}, {cut, len}};
  int r = 0;
  for (int i = 0; i < 2 && r != -1; i++) {
    memcpy(buf + held, input + reads[i][0], reads[i][1] - reads[i][0]);
    held += reads[i][1] - reads[i][0];
    size_t off = 0;
    while ((r = control_frame(buf + off, held - off, &size)) == 1) {
      /* Fields with no limit: the framing alone. The keeper's limit is its judgment, below. */
      int count = control_fields((const char *)buf + off + 5, size - 5, fields, (int)size);
      if (count < 0) {
        r = -1;
        break;
      }
      say_type(o, buf[off + 4]);
      for (int f = 0; f < count; f++) {
        say(o, fields[f][0] ? "field " : "field");
        say(o, fields[f]);
        say(o, "\n");
      }
      char type;
      const char *request[CONTROL_FIELDS_MAX];
      int accepted = control_request(buf + off, size, &type, request, CONTROL_FIELDS_MAX) >= 0;
      say(o, accepted ? "keeper accepts\n" : "keeper refuses\n");
      size_t again_size = 0;
      unsigned char *again = control_message((char)buf[off + 4], fields, count, &again_size);
      CHECK(again != NULL && again_size == size && memcmp(again, buf + off, size) == 0);
      free(again);
      off += size;
    }
    memmove(buf, buf + off, held - off);
    held -= off;
  }
  char text[32];
  snprintf(text, sizeof text, r == -1 ? "malformed\n" : held > 0 ? "rest %zu\n" : "", held);
  say(o, text);
  vec_put(o, (const unsigned char *)"", 1);
  free(buf);
}

static void check_vector(const char *path, char *text) {
  struct vec_bytes in = {NULL, 0, 0}, expected = {NULL, 0, 0};
  char *key, *rest;
  while ((key = vec_next_line(&text, &rest)) != NULL) {
    if (strcmp(key, "bytes") == 0) {
      if (vec_parse_bytes(rest, &in) != 0) fprintf(stderr, "%s: bad bytes\n", path), check_failures++;
      continue;
    }
    if (strcmp(key, "message") == 0 && strncmp(rest, "0x", 2) == 0) {
      say_type(&expected, (unsigned char)strtoul(rest + 2, NULL, 16));
      continue;
    }
    say(&expected, key);
    say(&expected, rest[0] ? " " : "");
    say(&expected, rest);
    say(&expected, "\n");
  }
  vec_put(&expected, (const unsigned char *)"", 1);
  size_t cuts = in.len < SMALL ? in.len + 1 : 1;
  for (size_t cut = 0; cut < cuts; cut++) {
    struct vec_bytes got = {NULL, 0, 0};
    decode(in.data, in.len, in.len < SMALL ? cut : in.len, &got);
    int same = strcmp((char *)got.data, (char *)expected.data) == 0;
    if (!same) {
      fprintf(stderr, "%s (cut at %zu): the keeper read\n%s\nexpected\n%s\n", path, cut, got.data, expected.data);
      check_failures++;
    }
    free(got.data);
    if (!same) break;
  }
  free(in.data);
  free(expected.data);
}

int main(int argc, char **argv) {
  if (argc < 2) return fprintf(stderr, "usage: %s <test/vectors>\n", argv[0]), 2;
  char dir[4096];
  snprintf(dir, sizeof dir, "%.4000s/control", argv[1]);
  CHECK(vec_each(dir, check_vector) > 0);
  return CHECK_RESULT;
}
