/*
 * The C unit tests' whole harness: CHECK and CHECK_STR report a failure on stderr and go on;
 * main returns CHECK_RESULT, non-zero after any failure. test/native/units.test.ts compiles and
 * runs each *.test.c (under AddressSanitizer and UndefinedBehaviorSanitizer).
 */
#ifndef SKIFF_TEST_CHECK_H
#define SKIFF_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                                \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);     \
      check_failures++;                                                            \
    }                                                                              \
  } while (0)

#define CHECK_STR(actual, expected)                                                                              \
  do {                                                                                                           \
    const char *a_ = (actual), *e_ = (expected);                                                                 \
    if (strcmp(a_, e_) != 0) {                                                                                   \
      fprintf(stderr, "%s:%d: CHECK_STR failed: %s is \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #actual, a_, \
              e_);                                                                                               \
      check_failures++;                                                                                          \
    }                                                                                                            \
  } while (0)

#define CHECK_RESULT (check_failures == 0 ? 0 : 1)

#endif
