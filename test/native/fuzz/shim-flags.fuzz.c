/*
 * The shim's command line (native/containerd-shim/flags.c) on hostile argv: containerd builds it,
 * but from a runtime's configured name and ids others choose. The input is argv[1..], each
 * argument ended by a NUL byte (the last one need not be). Every value read must point into argv,
 * and a refusal must be one NUL-ended line in its buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flags.h"

#define ARGS_MAX 64

/* Whether s is one of argv's strings or a suffix of one (a -name=value's value). */
static int in_argv(const char *s, char *const *argv, int argc) {
  for (int i = 1; i < argc; i++)
    if (s >= argv[i] && s <= argv[i] + strlen(argv[i])) return 1;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
  char *text = malloc(len + 1);
  memcpy(text, data, len);
  text[len] = '\0';
  char *argv[ARGS_MAX + 1];
  int argc = 0;
  argv[argc++] = "containerd-shim-skiff-v2";
  for (size_t at = 0; at < len && argc < ARGS_MAX;) {
    argv[argc++] = text + at;
    at += strlen(text + at) + 1;
  }
  argv[argc] = NULL;
  struct flags f;
  char why[64]; /* small: a long argument must be cut, not overflow */
  memset(why, 'x', sizeof why);
  if (parse_flags(argc, argv, &f, why, sizeof why) != 0) {
    if (memchr(why, '\0', sizeof why) == NULL || strchr(why, '\n') != NULL) abort();
  } else {
    const char *values[] = {f.namespace, f.address, f.id};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
      if (values[i][0] != '\0' && !in_argv(values[i], argv, argc)) abort();
    const char *maybe[] = {f.publish_binary, f.bundle, f.action};
    for (size_t i = 0; i < sizeof maybe / sizeof maybe[0]; i++)
      if (maybe[i] != NULL && !in_argv(maybe[i], argv, argc)) abort();
  }
  free(text);
  return 0;
}
