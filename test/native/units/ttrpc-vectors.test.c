/*
 * The shared ttrpc vectors (test/vectors/ttrpc/, README there) through the keeper's real frame
 * reader: relay.c reading containerd's socket, what it passes to the serving process read back
 * as frames (and each Request's method as ttrpc-wire.c takes it), what it answers containerd
 * read back as refusals. The same files hold the TypeScript reader
 * (test/adapters/shim/wire/ttrpc/frame-vectors.test.ts). argv[1]: the vectors' directory.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "relay.h"
#include "vectors.h"

#define SMALL 4096

/* What a reader made of the input, as text: one line per frame, method and refusal, so a
 * mismatch shows both sides whole. */
struct outcome {
  struct vec_bytes frames, refusals;
  int incomplete;
};

static void say(struct vec_bytes *b, const char *text) {
  vec_put(b, (const unsigned char *)text, strlen(text));
}

static void say_hex(struct vec_bytes *b, const unsigned char *data, size_t len) {
  static const char digits[] = "0123456789abcdef";
  char *hex = malloc(2 * len + 1);
  if (hex == NULL) abort();
  for (size_t i = 0; i < len; i++) hex[2 * i] = digits[data[i] >> 4], hex[2 * i + 1] = digits[data[i] & 15];
  vec_put(b, (const unsigned char *)hex, 2 * len);
  free(hex);
}

/* Everything waiting on fd, appended to got. */
static void drain(int fd, struct vec_bytes *got) {
  unsigned char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) vec_put(got, buf, (size_t)n);
}

/* A varint or a length-delimited field's bytes at *p of the keeper's status frame (ttrpc_status_frame). */
static uint64_t varint(const unsigned char **p) {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    unsigned char b = *(*p)++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (b < 0x80) return v;
  }
}

static void frames_of(const struct vec_bytes *got, struct outcome *o) {
  char line[96];
  for (size_t off = 0; off + TTRPC_HEADER <= got->len;) {
    struct ttrpc_header h;
    ttrpc_header_read(got->data + off, &h);
    const unsigned char *payload = got->data + off + TTRPC_HEADER;
    snprintf(line, sizeof line, "frame %u %u %u ", h.stream_id, h.type, h.flags);
    say(&o->frames, line);
    say_hex(&o->frames, payload, h.length);
    say(&o->frames, "\n");
    char method[METHOD_MAX];
    ttrpc_request_method(payload, h.length, method);
    if (h.type == TTRPC_REQUEST && method[0] != '\0') {
      say(&o->frames, "method ");
      say(&o->frames, method);
      say(&o->frames, "\n");
    }
    off += TTRPC_HEADER + h.length;
  }
}

/* The keeper's answers: Response{status{code, message}} frames, as ttrpc_status_frame writes them. */
static void refusals_of(const struct vec_bytes *got, struct outcome *o) {
  char line[160];
  for (size_t off = 0; off + TTRPC_HEADER <= got->len;) {
    struct ttrpc_header h;
    ttrpc_header_read(got->data + off, &h);
    const unsigned char *p = got->data + off + TTRPC_HEADER + 1;
    (void)varint(&p);          /* Response.status's length */
    p++;                       /* Status.code's key */
    uint64_t code = varint(&p);
    p++;                       /* Status.message's key */
    size_t mlen = (size_t)varint(&p);
    snprintf(line, sizeof line, "refused %u %llu %.*s\n", h.stream_id, (unsigned long long)code, (int)mlen,
             (const char *)p);
    say(&o->refusals, line);
    off += TTRPC_HEADER + h.length;
  }
}

/* Reads what containerd's side holds until the socket is empty. */
static void read_all_waiting(struct relay *r) {
  int waiting = 0;
  do {
    CHECK(relay_read(r, 0) == RELAY_OK);
  } while (ioctl(r->down, FIONREAD, &waiting) == 0 && waiting > 0);
}

/* The input sent as containerd would, cut in two at `cut` (two reads). */
static struct outcome run(const struct vec_bytes *in, size_t cut) {
  int down[2], up[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, down) != 0 ||
      socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, up) != 0)
    abort();
  struct relay *r = relay_new(down[0]);
  r->up = up[0];
  struct vec_bytes to_serving = {NULL, 0, 0}, to_containerd = {NULL, 0, 0};
  size_t parts[2][2] = {{0, cut}, {cut, in->len}};
  for (int i = 0; i < 2; i++) {
    for (size_t at = parts[i][0]; at < parts[i][1];) {
      size_t n = parts[i][1] - at < 65536 ? parts[i][1] - at : 65536;
      ssize_t w = write(down[1], in->data + at, n);
      if (w <= 0) abort();
      at += (size_t)w;
      read_all_waiting(r);
      /* What was read goes on, so that a 4 MiB frame never waits whole in the socket. */
      while (r->to_up.head != NULL) {
        CHECK(relay_write(r, 1) == RELAY_OK);
        drain(up[1], &to_serving);
      }
    }
  }
  CHECK(relay_write(r, 0) == RELAY_OK);
  drain(down[1], &to_containerd);
  struct outcome o = {{NULL, 0, 0}, {NULL, 0, 0}, r->from_down.len > 0 || r->from_down.discard > 0};
  frames_of(&to_serving, &o);
  refusals_of(&to_containerd, &o);
  vec_put(&o.frames, (const unsigned char *)"", 1);
  vec_put(&o.refusals, (const unsigned char *)"", 1);
  relay_free(r);
  close(down[1]);
  close(up[1]);
  free(to_serving.data);
  free(to_containerd.data);
  return o;
}

static void check_vector(const char *path, char *text) {
  struct vec_bytes in = {NULL, 0, 0}, frames = {NULL, 0, 0}, refusals = {NULL, 0, 0};
  int incomplete = 0;
  char *key, *rest;
  while ((key = vec_next_line(&text, &rest)) != NULL) {
    struct vec_bytes payload = {NULL, 0, 0};
    char line[96];
    unsigned stream, type, flags;
    int at = 0;
    if (strcmp(key, "bytes") == 0) {
      if (vec_parse_bytes(rest, &in) != 0) fprintf(stderr, "%s: bad bytes\n", path), check_failures++;
    } else if (strcmp(key, "frame") == 0 && sscanf(rest, "%u %u %u%n", &stream, &type, &flags, &at) == 3) {
      if (vec_parse_bytes(rest + at, &payload) != 0) fprintf(stderr, "%s: bad payload\n", path), check_failures++;
      snprintf(line, sizeof line, "frame %u %u %u ", stream, type, flags);
      say(&frames, line);
      say_hex(&frames, payload.data, payload.len);
      say(&frames, "\n");
    } else if (strcmp(key, "method") == 0) {
      say(&frames, "method ");
      say(&frames, rest);
      say(&frames, "\n");
    } else if (strcmp(key, "refused") == 0) {
      say(&refusals, "refused ");
      say(&refusals, rest);
      say(&refusals, "\n");
    } else if (strcmp(key, "incomplete") == 0) {
      incomplete = 1;
    } else {
      fprintf(stderr, "%s: unknown line %s\n", path, key);
      check_failures++;
    }
    free(payload.data);
  }
  vec_put(&frames, (const unsigned char *)"", 1);
  vec_put(&refusals, (const unsigned char *)"", 1);
  /* Every cut of a small input; of a large one, around the first header and the middle. */
  size_t big_cuts[] = {1, 9, 10, 11, in.len / 2, in.len - 1};
  size_t cuts = in.len < SMALL ? in.len + 1 : sizeof big_cuts / sizeof big_cuts[0];
  for (size_t i = 0; i < cuts; i++) {
    size_t cut = in.len < SMALL ? i : big_cuts[i];
    if (cut > in.len) continue;
    struct outcome o = run(&in, cut);
    if (strcmp((char *)o.frames.data, (char *)frames.data) != 0 ||
        strcmp((char *)o.refusals.data, (char *)refusals.data) != 0 || o.incomplete != incomplete) {
      fprintf(stderr, "%s (cut at %zu): the keeper read\n%s%s%s\nexpected\n%s%s%s\n", path, cut, o.frames.data,
              o.refusals.data, o.incomplete ? "incomplete\n" : "", frames.data, refusals.data,
              incomplete ? "incomplete\n" : "");
      check_failures++;
      i = cuts; /* one report per vector */
    }
    free(o.frames.data);
    free(o.refusals.data);
  }
  free(in.data);
  free(frames.data);
  free(refusals.data);
}

int main(int argc, char **argv) {
  if (argc < 2) return fprintf(stderr, "usage: %s <test/vectors>\n", argv[0]), 2;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/ttrpc", argv[1]);
  int count = vec_each(dir, check_vector);
  CHECK(count > 0);
  return CHECK_RESULT;
}
