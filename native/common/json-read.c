/* A recursive-descent walk of RFC 8259's grammar that keeps one string: see json-read.h. */
#include "json-read.h"

#include <stdint.h>
#include <string.h>

#define KEY_MAX 256

struct reader {
  const char *p, *end;
  int depth;
};

/* Where the value being read goes: `depth` more member names to follow, then the string. */
struct target {
  const char *const *path;
  size_t depth;
  char *out;
  size_t size;
  enum json_result *result;
};

static void skip_ws(struct reader *r) {
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) r->p++;
}

static int hex4(struct reader *r, unsigned *value) {
  if (r->end - r->p < 4) return 0;
  *value = 0;
  for (int i = 0; i < 4; i++) {
    char c = *r->p++;
    unsigned digit;
    if (c >= '0' && c <= '9') digit = (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') digit = (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') digit = (unsigned)(c - 'A' + 10);
    else return 0;
    *value = *value << 4 | digit;
  }
  return 1;
}

/* The output of one string: bytes are counted even past `size`, so "too long" is known at the end. */
struct sink {
  char *out;
  size_t size, n;
  int has_nul;
};

static void put(struct sink *s, unsigned char c) {
  if (s->out != NULL && s->n + 1 < s->size) s->out[s->n] = (char)c;
  s->n++;
}

static void put_code_point(struct sink *s, uint32_t cp) {
  if (cp == 0) s->has_nul = 1;
  if (cp < 0x80) {
    put(s, (unsigned char)cp);
  } else if (cp < 0x800) {
    put(s, (unsigned char)(0xc0 | cp >> 6));
    put(s, (unsigned char)(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    put(s, (unsigned char)(0xe0 | cp >> 12));
    put(s, (unsigned char)(0x80 | (cp >> 6 & 0x3f)));
    put(s, (unsigned char)(0x80 | (cp & 0x3f)));
  } else {
    put(s, (unsigned char)(0xf0 | cp >> 18));
    put(s, (unsigned char)(0x80 | (cp >> 12 & 0x3f)));
    put(s, (unsigned char)(0x80 | (cp >> 6 & 0x3f)));
    put(s, (unsigned char)(0x80 | (cp & 0x3f)));
  }
}

/* \uXXXX (the "\u" read), joining a surrogate pair; a lone surrogate is U+FFFD, as encoding/json. */
static int unicode_escape(struct reader *r, struct sink *s) {
  unsigned hi;
  if (!hex4(r, &hi)) return 0;
  if (hi >= 0xd800 && hi < 0xdc00 && r->end - r->p >= 6 && r->p[0] == '\\' && r->p[1] == 'u') {
    struct reader ahead = {r->p + 2, r->end, r->depth};
    unsigned lo;
    if (!hex4(&ahead, &lo)) return 0;
    if (lo >= 0xdc00 && lo < 0xe000) {
      r->p = ahead.p;
      put_code_point(s, 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00));
      return 1;
    }
  }
  put_code_point(s, hi >= 0xd800 && hi < 0xe000 ? 0xfffd : hi);
  return 1;
}

/* A string, the opening quote next; decoded into s (s->out may be NULL to skip). 0 when malformed. */
static int read_string(struct reader *r, struct sink *s) {
  if (r->p >= r->end || *r->p != '"') return 0;
  r->p++;
  while (r->p < r->end) {
    unsigned char c = (unsigned char)*r->p++;
    if (c == '"') {
      if (s->out != NULL && s->size > 0) s->out[s->n < s->size ? s->n : s->size - 1] = '\0';
      return 1;
    }
    if (c < 0x20) return 0;
    if (c != '\\') {
      put(s, c);
      continue;
    }
    if (r->p >= r->end) return 0;
    static const char escaped[] = "\"\\/bfnrt", meant[] = "\"\\/\b\f\n\r\t";
    char e = *r->p++;
    const char *plain = e != '\0' ? strchr(escaped, e) : NULL;
    if (plain != NULL) put(s, (unsigned char)meant[plain - escaped]);
    else if (e != 'u' || !unicode_escape(r, s)) return 0;
  }
  return 0;
}

static int digits(struct reader *r) {
  const char *start = r->p;
  while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
  return r->p > start;
}

static int read_number(struct reader *r) {
  if (r->p < r->end && *r->p == '-') r->p++;
  if (r->p < r->end && *r->p == '0') r->p++;
  else if (!digits(r)) return 0;
  if (r->p < r->end && *r->p == '.') {
    r->p++;
    if (!digits(r)) return 0;
  }
  if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
    r->p++;
    if (r->p < r->end && (*r->p == '+' || *r->p == '-')) r->p++;
    if (!digits(r)) return 0;
  }
  return 1;
}

static int read_literal(struct reader *r, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0) return 0;
  r->p += n;
  return 1;
}

static int read_value(struct reader *r, const struct target *t);

/* An object, the `{` next. Members named t->path[0] are read as the target's next step. */
static int read_object(struct reader *r, const struct target *t) {
  r->p++;
  skip_ws(r);
  if (r->p < r->end && *r->p == '}') {
    r->p++;
    return 1;
  }
  for (;;) {
    char key[KEY_MAX];
    struct sink k = {key, sizeof key, 0, 0};
    skip_ws(r);
    if (!read_string(r, &k)) return 0;
    int wanted = t != NULL && !k.has_nul && k.n < sizeof key && strcmp(key, t->path[0]) == 0;
    struct target next = wanted ? (struct target){t->path + 1, t->depth - 1, t->out, t->size, t->result}
                                : (struct target){0};
    skip_ws(r);
    if (r->p >= r->end || *r->p++ != ':') return 0;
    if (!read_value(r, wanted ? &next : NULL)) return 0;
    skip_ws(r);
    if (r->p >= r->end) return 0;
    char c = *r->p++;
    if (c == '}') return 1;
    if (c != ',') return 0;
  }
}

static int read_array(struct reader *r) {
  r->p++;
  skip_ws(r);
  if (r->p < r->end && *r->p == ']') {
    r->p++;
    return 1;
  }
  for (;;) {
    if (!read_value(r, NULL)) return 0;
    skip_ws(r);
    if (r->p >= r->end) return 0;
    char c = *r->p++;
    if (c == ']') return 1;
    if (c != ',') return 0;
  }
}

/* Any value; when t is not NULL it is the target (t->depth 0) or on the way to it. */
static int read_value(struct reader *r, const struct target *t) {
  skip_ws(r);
  if (r->p >= r->end) return 0;
  char c = *r->p;
  if (t != NULL && t->depth == 0) {
    if (c != '"') {
      *t->result = JSON_NOT_STRING;
      return read_value(r, NULL);
    }
    struct sink s = {t->out, t->size, 0, 0};
    if (!read_string(r, &s)) return 0;
    *t->result = s.has_nul ? JSON_NOT_STRING : s.n >= t->size ? JSON_TOO_LONG : JSON_FOUND;
    return 1;
  }
  if (c == '{' || c == '[') {
    if (++r->depth > JSON_MAX_DEPTH) return 0;
    int ok = c == '{' ? read_object(r, t) : read_array(r);
    r->depth--;
    return ok;
  }
  if (c == '"') {
    struct sink skip = {0};
    return read_string(r, &skip);
  }
  if (c == 't') return read_literal(r, "true");
  if (c == 'f') return read_literal(r, "false");
  if (c == 'n') return read_literal(r, "null");
  return read_number(r);
}

enum json_result json_string_at(const char *json, size_t len, const char *const *path, size_t depth, char *out,
                                size_t size) {
  enum json_result result = JSON_ABSENT;
  struct reader r = {json, json + len, 0};
  struct target t = {path, depth, out, size, &result};
  if (size > 0) out[0] = '\0';
  if (depth == 0 || size == 0) return JSON_MALFORMED;
  if (!read_value(&r, &t)) {
    result = JSON_MALFORMED;
  } else {
    skip_ws(&r);
    if (r.p != r.end) result = JSON_MALFORMED;
  }
  /* Whatever was decoded before the document broke off is not a value: out is "" unless found. */
  if (result != JSON_FOUND) out[0] = '\0';
  return result;
}

const char *json_result_text(enum json_result result) {
  switch (result) {
    case JSON_FOUND: return "found";
    case JSON_ABSENT: return "absent";
    case JSON_MALFORMED: return "not valid JSON";
    case JSON_NOT_STRING: return "not a string";
    case JSON_TOO_LONG: return "too long";
  }
  return "unknown";
}
