/*
 * `delete`, after containerd's connection to the task closed. A task the serving process deleted
 * has left nothing: print an empty DeleteResponse. Otherwise what held the connection died (the pod
 * keeper, or the serving process without one): tell the serving process to forget the task
 * (forget.c), `<OCI runtime> delete --force` with the binary and root the task's record names
 * (kills what still runs), unmount the rootfs, remove the task's files, print
 * DeleteResponse{pid, 137, now} as runc's shim does. The lookups' faults do not stop it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "delete-response.h"
#include "fail.h"
#include "forget.h"
#include "json-read.h"
#include "places.h"
#include "read-all.h"
#include "remove-tree.h"
#include "task-group.h"
#include "task-layout.h"
#include "unix-socket.h"
#include "verbs.h"

#define MAX_RECORD (64 << 10)
/* How long `delete` waits for the serving process to forget a task (docs/keeper-protocol.md, "`delete`"). */
#define FORGET_WAIT_MS 1000

/*
 * The OCI runtime that made the task's container (its binary and --root), from the record the
 * serving process wrote in the task dir before creating it. 0, or -1 with why in `why`.
 */
static int oci_runtime_of(const char *task_dir, char *binary, char *root, char *why, size_t why_size) {
  char path[PATH_MAX];
  if (layout_path(path, sizeof path, "%s/" LAYOUT_OCI_RUNTIME_FILE, task_dir) != 0)
    return snprintf(why, why_size, "the task dir's path is too long"), -1;
  size_t len = 0;
  char *json = read_file(path, MAX_RECORD, &len);
  if (json == NULL) return snprintf(why, why_size, "cannot read %s (%s)", path, strerror(errno)), -1;
  const char *const at_binary[] = {LAYOUT_OCI_RUNTIME_BINARY}, *const at_root[] = {LAYOUT_OCI_RUNTIME_ROOT};
  enum json_result b = json_string_at(json, len, at_binary, 1, binary, PATH_MAX);
  enum json_result r = json_string_at(json, len, at_root, 1, root, PATH_MAX);
  free(json);
  if (b != JSON_FOUND || r != JSON_FOUND || binary[0] != '/' || root[0] != '/')
    return snprintf(why, why_size, "%s does not name an absolute binary and root (binary %s, root %s)", path,
                     json_result_text(b), json_result_text(r)),
           -1;
  return 0;
}

/* `<binary> --root <root> delete --force <id>`: kills what still runs of the container and removes it. */
static void oci_delete(const char *binary, const char *root, const char *id) {
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    execl(binary, binary, "--root", root, "delete", "--force", id, (char *)NULL);
    fprintf(stderr, "containerd-shim-skiff-v2: cannot run %s (%s): the container %s may still run\n", binary,
            strerror(errno), id);
    _exit(127);
  }
  int status;
  if (pid > 0) waitpid(pid, &status, 0);
}

/* The init's pid from its pid file, 0 when there is none or it is not a pid. */
static uint32_t init_pid(const char *task_dir) {
  char path[PATH_MAX];
  if (layout_path(path, sizeof path, "%s/" LAYOUT_INIT_PID_FILE, task_dir) != 0) return 0;
  char *text = read_file(path, 32, NULL);
  if (text == NULL) return 0;
  char *end;
  errno = 0;
  unsigned long pid = strtoul(text, &end, 10);
  int ok = errno == 0 && end != text && (*end == '\0' || *end == '\n') && pid <= INT32_MAX;
  free(text);
  return ok ? (uint32_t)pid : 0;
}

/* The socket of the group that served the task, for `delete`, as group_files finds it; -1 when
 * config.json does not say (it tells nothing then, and delete goes on). A bad SKIFF_SHIM_GROUP is
 * the default here: it was refused at start. */
static int served_by(const struct flags *f, const char *state, const char *bundle, char *socket_path) {
  char group[4096];
  struct fault ignored;
  if (task_group(bundle, pods_apart(&ignored) == 1, group, sizeof group, &ignored) != 0) return -1;
  uint64_t h = layout_group_hash(f->address, f->namespace, group);
  return layout_group_file(socket_path, SUN_PATH_SIZE, state, h, ".sock");
}

/*
 * The serving process forgets the task (forget.c) before the container is killed: from then on
 * an exit it would see (a terminal task's init is its child) is not its to publish, and no
 * record of it is written into the directory removed below. containerd publishes the exit.
 */
static enum forget_result tell_forget(const struct flags *f, const char *state, const char *bundle) {
  char socket_path[PATH_MAX];
  if (served_by(f, state, bundle, socket_path) != 0) return FORGET_DONE; /* nobody to find: nobody to tell */
  enum forget_result told = forget_task(socket_path, f->id, FORGET_WAIT_MS);
  if (told == FORGET_NO_ANSWER)
    fprintf(stderr,
            "containerd-shim-skiff-v2: the serving process at %s did not answer within %d ms that it forgot the task "
            "%s; it may hold it until it restarts\n",
            socket_path, FORGET_WAIT_MS, f->id);
  return told;
}

/*
 * The socket of the task's pod keeper when the keeper is dead (SIGKILLed, say: it could not
 * remove it), as the runc shim's socket goes with its `delete`. Found as start_keeper finds it,
 * but what config.json cannot say is left to the rest of the rule (task_pod), down to the task's id.
 * Removed under the pod's lock, and only when nothing answers on it: a live keeper of the pod's
 * other tasks, or one a `start` binds meanwhile (it holds the lock until it listens), keeps it.
 */
static void remove_dead_keeper_socket(const struct flags *f, const char *state, const char *bundle) {
  char pod[4096], socket_path[PATH_MAX], lock_path[PATH_MAX];
  struct fault ignored;
  task_pod(bundle, f->id, pod, sizeof pod, &ignored);
  uint64_t h = layout_group_hash(f->address, f->namespace, pod);
  if (layout_pod_file(socket_path, SUN_PATH_SIZE, state, h, ".sock") != 0 ||
      layout_pod_file(lock_path, sizeof lock_path, state, h, ".lock") != 0)
    return;
  struct stat st;
  if (lstat(socket_path, &st) != 0 || !S_ISSOCK(st.st_mode) || unix_answers(socket_path)) return;
  int lock = open(lock_path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (lock < 0) return; /* no keeper was ever started for this pod by a start that locks */
  if (flock(lock, LOCK_EX) == 0 && !unix_answers(socket_path)) unlink(socket_path);
  close(lock);
}

int do_delete(const struct flags *f) {
  char bundle[PATH_MAX], state[PATH_MAX], task_dir[PATH_MAX], path[PATH_MAX];
  bundle_and_state(f, bundle, state);
  path_or_die(layout_task_dir(task_dir, sizeof task_dir, state, f->namespace, f->id), state);
  remove_dead_keeper_socket(f, state, bundle);
  if (layout_is_sandbox_bundle(bundle)) {
    /* The serving process lets the sandbox go first, as a task (SandboxService.forget): after a
     * dead keeper nobody sends it ShutdownSandbox, and it would hold the sandbox for its life. */
    tell_forget(f, state, bundle);
    return delete_sandbox(f->id, bundle, state);
  }
  struct stat st;
  if (lstat(task_dir, &st) != 0) return 0; /* deleted by the serving process: nothing left */
  enum forget_result told = tell_forget(f, state, bundle);

  char binary[PATH_MAX], root[PATH_MAX], why[3 * PATH_MAX];
  if (oci_runtime_of(task_dir, binary, root, why, sizeof why) == 0) oci_delete(binary, root, f->id);
  else fprintf(stderr, "containerd-shim-skiff-v2: %s: the container %s may still run\n", why, f->id);
  path_or_die(layout_path(path, sizeof path, "%s/rootfs", bundle), bundle);
  for (int i = 0; i < 16 && umount2(path, MNT_DETACH) == 0; i++) {
  }
  uint32_t pid = init_pid(task_dir);
  remove_tree(task_dir);
  /* Nobody served when asked: a serving process started since (its listener is bound before it
   * reads the task records) may have taken the task over before its directory went. Told too. */
  if (told == FORGET_NOBODY) tell_forget(f, state, bundle);

  /* What `delete --force` did to it. */
  delete_response_print_killed(pid);
  return 0;
}
