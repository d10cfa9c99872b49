/* `-info`, containerd 2.x's question before a task of a runtime type other than runc's: the shim's
 * containerd.types.RuntimeInfo on stdout (runtime-info.c), the runtime options (an Any) on stdin. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fail.h"
#include "node-lookup.h"
#include "read-all.h"
#include "runtime-info.h"
#include "verbs.h"

#define MAX_INFO_INPUT (1 << 20)
#define RUNTIME_NAME "io.containerd.skiff.v2"

/*
 * `<binary> features`' standard output (the OCI runtime's features JSON, runtime-spec's
 * features.md), malloc'd; NULL when it cannot be run, fails or prints no JSON object: the runc
 * shim then leaves the features out (youki has no `features`).
 */
static unsigned char *runtime_features(const char *binary, size_t *len) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return NULL;
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    if (null < 0 || dup2(null, 0) < 0 || dup2(out[1], 1) < 0 || dup2(null, 2) < 0) _exit(127);
    execl(binary, binary, "features", (char *)NULL);
    _exit(127);
  }
  close(out[1]);
  unsigned char *json = pid > 0 ? read_all(out[0], MAX_INFO_INPUT, len) : NULL;
  close(out[0]);
  int status = 0;
  while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  size_t start = 0;
  while (json != NULL && start < *len && (json[start] == ' ' || json[start] == '\n' || json[start] == '\t')) start++;
  if (pid <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || json == NULL || start == *len ||
      json[start] != '{') {
    free(json);
    return NULL;
  }
  while (*len > start && (json[*len - 1] == '\n' || json[*len - 1] == ' ')) (*len)--;
  return json;
}

/*
 * -info: containerd.types.RuntimeInfo, as containerd's runc shim answers it (manager_linux.go Info):
 * the name, skiff's version, the options as received, and the OCI runtime's features: runc, or
 * the binary_name of containerd.runc.v1.Options. runtimeoptions.v1.Options (a TOML text or file,
 * which the serving process reads per task) are echoed and runc's features given. Options of another
 * type, or a binary that is not found, fail in one line as the runc shim fails.
 */
int do_info(void) {
  size_t in_len = 0;
  unsigned char *in = read_all(0, MAX_INFO_INPUT, &in_len);
  if (in == NULL && errno != EBADF) die("cannot read the runtime options on stdin", strerror(errno));
  if (in == NULL) in_len = 0;
  char binary[PATH_MAX], path[PATH_MAX];
  struct bytes options = {in, in_len}, type_url;
  const char *why = NULL;
  int understood = info_runtime_binary(in, in_len, binary, sizeof binary, &type_url, &why);
  if (understood < 0) die(why, NULL);
  if (understood > 0) {
    /* The type_url is containerd's caller's bytes: a control character in it is written as '?'. */
    fputs("containerd-shim-skiff-v2: runtime options of type \"", stderr);
    for (size_t i = 0; i < type_url.len && i < 200; i++)
      fputc(type_url.data[i] < 0x20 || type_url.data[i] == 0x7f ? '?' : type_url.data[i], stderr);
    fputs("\" are not understood; send " RUNC_OPTIONS_TYPE ", " RUNTIME_OPTIONS_TYPE " or none\n", stderr);
    free(in);
    return 1;
  }
  if (strchr(binary, '/') != NULL) {
    if (!executable_file(binary)) die("the OCI runtime is not an executable file", binary);
    snprintf(path, sizeof path, "%s", binary);
  } else if (program_on_path(binary, path, sizeof path) != 0) {
    die("cannot find the OCI runtime in containerd's PATH", binary);
  }
  size_t features_len = 0;
  unsigned char *json = runtime_features(path, &features_len);
  struct bytes features = {json, json == NULL ? 0 : features_len};
  size_t max = runtime_info_max(strlen(RUNTIME_NAME), strlen(SKIFF_VERSION), options.len, features.len);
  unsigned char *out = malloc(max);
  if (out == NULL) die("out of memory", NULL);
  size_t len = runtime_info_encode(out, RUNTIME_NAME, SKIFF_VERSION, options, features);
  int ok = fwrite(out, 1, len, stdout) == len && fflush(stdout) == 0;
  free(out);
  free(json);
  free(in);
  if (!ok) die("cannot write the RuntimeInfo to stdout", strerror(errno));
  return 0;
}
