/*
 * The shared test vectors' reader (test/vectors/README.md): one `.vec` file per vector, lines of
 * `<keyword> <rest>`, `#` comments. The TypeScript tests read the same files
 * (test/support/vectors.ts), so the C and TypeScript sides of a protocol cannot drift apart.
 */
#ifndef SKIFF_TEST_VECTORS_H
#define SKIFF_TEST_VECTORS_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vec_bytes {
  unsigned char *data;
  size_t len, cap;
};

static void vec_put(struct vec_bytes *b, const unsigned char *data, size_t n) {
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + n) cap *= 2;
    unsigned char *grown = realloc(b->data, cap);
    if (grown == NULL) abort();
    b->data = grown;
    b->cap = cap;
  }
  memcpy(b->data + b->len, data, n);
  b->len += n;
}

static int vec_hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Appends the bytes of `text`: tokens of hex digits, or `<count>x<hh>` (count copies of byte hh). 0, or -1. */
static inline int vec_parse_bytes(const char *text, struct vec_bytes *b) {
  while (*text) {
    while (*text == ' ') text++;
    if (*text == '\0') break;
    size_t n = strcspn(text, " ");
    const char *x = memchr(text, 'x', n);
    if (x != NULL) {
      char *end;
      unsigned long count = strtoul(text, &end, 10);
      int hi = vec_hex(x[1]), lo = x[2] ? vec_hex(x[2]) : -1;
      if (end != x || hi < 0 || lo < 0 || (size_t)(x + 3 - text) != n) return -1;
      unsigned char *fill = malloc(count ? count : 1);
      if (fill == NULL) abort();
      memset(fill, hi << 4 | lo, count);
      vec_put(b, fill, count);
      free(fill);
    } else {
      if (n % 2 != 0) return -1;
      for (size_t i = 0; i < n; i += 2) {
        int hi = vec_hex(text[i]), lo = vec_hex(text[i + 1]);
        if (hi < 0 || lo < 0) return -1;
        unsigned char byte = (unsigned char)(hi << 4 | lo);
        vec_put(b, &byte, 1);
      }
    }
    text += n;
  }
  return 0;
}

/* The file's text, NUL-ended, malloc'd. */
static char *vec_read_file(const char *path) {
  FILE *f = fopen(path, "r");
  if (f == NULL) return NULL;
  struct vec_bytes b = {NULL, 0, 0};
  unsigned char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) vec_put(&b, buf, n);
  fclose(f);
  vec_put(&b, (const unsigned char *)"", 1);
  return (char *)b.data;
}

static int vec_name_order(const struct dirent **a, const struct dirent **b) {
  return strcmp((*a)->d_name, (*b)->d_name);
}

static int vec_is_vector(const struct dirent *e) {
  size_t n = strlen(e->d_name);
  return n > 4 && strcmp(e->d_name + n - 4, ".vec") == 0;
}

/* Calls check(path, text) for each .vec file of dir, in name order; the number of files (-1: no dir). */
static int vec_each(const char *dir, void (*check)(const char *path, char *text)) {
  struct dirent **names;
  int count = scandir(dir, &names, vec_is_vector, vec_name_order);
  if (count < 0) return -1;
  for (int i = 0; i < count; i++) {
    char path[4096 + 256 + 2]; /* a directory's path, a name of at most 255 bytes */
    snprintf(path, sizeof path, "%.4096s/%s", dir, names[i]->d_name);
    char *text = vec_read_file(path);
    if (text != NULL) check(path, text);
    free(text);
    free(names[i]);
  }
  free(names);
  return count;
}

/* The next line of *text (cut in place), its keyword and rest; NULL at the end. Skips comments and blanks. */
static char *vec_next_line(char **text, char **rest) {
  for (;;) {
    if (**text == '\0') return NULL;
    char *line = *text, *nl = strchr(line, '\n');
    if (nl != NULL) {
      *nl = '\0';
      *text = nl + 1;
    } else {
      *text = line + strlen(line);
    }
    if (line[0] == '\0' || line[0] == '#') continue;
    char *space = strchr(line, ' ');
    if (space != NULL) *space = '\0';
    *rest = space != NULL ? space + 1 : line + strlen(line);
    return line;
  }
}

#endif
