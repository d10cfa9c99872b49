/*
 * `sandbox`'s command line (native/containerd-shim/sandbox-flags.c) on hostile argv: the pod keeper
 * writes it as root from a pod's spec (its hostname, its sysctls), which others choose. The input is
 * argv[2..], each argument ended by a NUL byte (the last one need not be). Every value read must
 * point into argv, a refusal must be one NUL-ended line, and every sysctl accepted must be a path
 * under /proc/sys that cannot leave it, of a namespace the sandbox has of its own.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox-flags.h"

#define ARGS_MAX 64

static int in_argv(const char *s, char *const *argv, int argc) {
  for (int i = 2; i < argc; i++)
    if (s >= argv[i] && s <= argv[i] + strlen(argv[i])) return 1;
  return 0;
}

static void check_sysctl(const struct sandbox_flags *f, const struct sandbox_sysctl *s, char *const *argv, int argc) {
  char path[PATH_MAX];
  if (!in_argv(s->key, argv, argc) || !in_argv(s->value, argv, argc) || s->value != s->key + s->key_len + 1) abort();
  if (sandbox_sysctl_path(s, path, sizeof path) != 0) abort();
  if (strncmp(path, "/proc/sys/", 10) != 0 || strstr(path, "..") != NULL || strstr(path, "//") != NULL ||
      strstr(path, "/./") != NULL || path[strlen(path) - 1] == '/')
    abort();
  const char *key = path + 10;
  if (strncmp(key, "net/", 4) == 0 && f->netns == NULL) abort();
  if (strncmp(key, "kernel/", 7) == 0 && strncmp(key, "kernel/hostname", 15) != 0 &&
      strncmp(key, "kernel/domainname", 17) != 0 && f->host_ipc)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
  char *text = malloc(len + 1);
  memcpy(text, data, len);
  text[len] = '\0';
  char *argv[ARGS_MAX + 1];
  int argc = 0;
  argv[argc++] = "containerd-shim-skiff-v2";
  argv[argc++] = "sandbox";
  for (size_t at = 0; at < len && argc < ARGS_MAX;) {
    argv[argc++] = text + at;
    at += strlen(text + at) + 1;
  }
  argv[argc] = NULL;
  static struct sandbox_flags f;
  char why[64]; /* small: a long argument must be cut, not overflow */
  memset(why, 'x', sizeof why);
  if (parse_sandbox_flags(argc, argv, &f, why, sizeof why) != 0) {
    if (memchr(why, '\0', sizeof why) == NULL || strchr(why, '\n') != NULL) abort();
  } else {
    if (f.pid_file == NULL || !in_argv(f.pid_file, argv, argc)) abort();
    if ((f.netns != NULL && !in_argv(f.netns, argv, argc)) || (f.hostname != NULL && !in_argv(f.hostname, argv, argc)))
      abort();
    if (f.hostname != NULL && f.host_uts) abort();
    for (int i = 0; i < f.sysctl_count; i++) check_sysctl(&f, &f.sysctls[i], argv, argc);
  }
  free(text);
  return 0;
}
