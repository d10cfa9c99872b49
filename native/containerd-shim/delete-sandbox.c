/*
 * `delete` in a sandbox's bundle (docs/sandbox-api.md, "Stop, Remove, restart"). After a
 * ShutdownSandbox the serving process has ended the sandbox process and containerd only tidies
 * up: an empty DeleteResponse. When the pod's keeper died instead, the sandbox process lives on,
 * re-parented, holding the pod's namespaces: this ends it, as `runc delete --force` ends a
 * task's container, and says DeleteResponse{pid, 137, now}. The pid is the one `sandbox` wrote
 * in the bundle, killed only while it still names a skiff-sandbox process.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "delete-response.h"
#include "read-all.h"
#include "task-layout.h"
#include "verbs.h"

/* What `sandbox` names its holder (sandbox-hold.c), as /proc/<pid>/comm reads it. */
#define HOLDER_COMM "skiff-sandbox\n"

/* The pid in <bundle>/sandbox.pid while it is a skiff-sandbox process; else 0. */
static uint32_t running_holder(const char *bundle) {
  char path[4096];
  if (layout_path(path, sizeof path, "%s/sandbox.pid", bundle) != 0) return 0;
  char *text = read_file(path, 32, NULL);
  if (text == NULL) return 0;
  char *end;
  unsigned long pid = strtoul(text, &end, 10);
  int ok = end != text && *end == '\0' && pid > 1 && pid < (1UL << 30);
  free(text);
  if (!ok || layout_path(path, sizeof path, "/proc/%lu/comm", pid) != 0) return 0;
  char *comm = read_file(path, 64, NULL);
  int holder = comm != NULL && strcmp(comm, HOLDER_COMM) == 0;
  free(comm);
  return holder ? (uint32_t)pid : 0;
}

int delete_sandbox(const char *bundle) {
  uint32_t pid = running_holder(bundle);
  if (pid == 0) return 0; /* ended by its serving process: nothing left */
  if (kill((pid_t)pid, SIGKILL) != 0) return 0;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  unsigned char out[DELETE_RESPONSE_MAX];
  size_t len = delete_response_encode(out, pid, 137, (int64_t)now.tv_sec, (int32_t)now.tv_nsec);
  fwrite(out, 1, len, stdout);
  return 0;
}
