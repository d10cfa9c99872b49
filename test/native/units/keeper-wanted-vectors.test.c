/*
 * The shared SKIFF_KEEPER vectors (test/vectors/keeper-wanted/, README there) through the rule
 * `start` and `serve` read (keeper_wanted_by); the serving process's twin reads the same files
 * (test/adapters/shim/os/keepers-wanted.test.ts). argv[1]: the vectors' directory.
 */
#include "check.h"
#include "keeper-wanted.h"
#include "vectors.h"

static void check_vector(const char *path, char *text) {
  char *rest, *key;
  const char *value = NULL;
  int have_env = 0, checked = 0;
  while ((key = vec_next_line(&text, &rest)) != NULL) {
    if (strcmp(key, "unset") == 0) {
      value = NULL;
      have_env = 1;
    } else if (strcmp(key, "value") == 0) {
      value = rest;
      have_env = 1;
    } else if (strcmp(key, "keepers") == 0) {
      CHECK(have_env);
      int want = strcmp(rest, "wanted") == 0;
      CHECK(want || strcmp(rest, "off") == 0);
      if (keeper_wanted_by(value) != want) {
        fprintf(stderr, "%s: keeper_wanted_by(%s%s%s) is %d\n", path, value ? "\"" : "", value ? value : "NULL",
                value ? "\"" : "", !want);
        CHECK(0);
      }
      checked = 1;
    } else {
      fprintf(stderr, "%s: unknown line %s\n", path, key);
      CHECK(0);
    }
  }
  CHECK(checked);
}

int main(int argc, char **argv) {
  if (argc < 2) return fprintf(stderr, "usage: %s <test/vectors>\n", argv[0]), 2;
  char dir[4096];
  snprintf(dir, sizeof dir, "%.4000s/keeper-wanted", argv[1]);
  CHECK(vec_each(dir, check_vector) > 0);
  return CHECK_RESULT;
}
