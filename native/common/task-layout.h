/*
 * The on-disk layout the native programs share with the serving process. It is stated once in
 * docs/on-disk-layout.md; src/adapters/shim/outbound/process-runtime/task-layout.ts is its
 * TypeScript side and this header its C side, and test/native/layout-agreement.test.ts holds
 * the two to each other.
 *
 *   <state>/io.containerd.runtime.v2.task/<ns>/<id>   containerd's bundle of a task
 *   <state>/skiff/<hash>.sock, <hash>.lock            a serving group's socket and its lock
 *   <state>/skiff/k-<hash>.sock, k-<hash>.lock        a pod keeper's socket and its lock
 *   <state>/skiff/<ns>                                the group's serving process's --state-dir
 *   <state dir>/tasks/<id>/init.pid                   the init's pid, written by the OCI runtime
 *   <state dir>/tasks/<id>/oci-runtime.json           {"binary", "root"}: the OCI runtime of the task
 */
#ifndef SKIFF_TASK_LAYOUT_H
#define SKIFF_TASK_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#define LAYOUT_BUNDLES_MARK "/io.containerd.runtime.v2.task/"
/* A sandbox's bundle, under containerd's sandbox controller of `sandboxer = "shim"` (docs/sandbox-api.md). */
#define LAYOUT_SANDBOXES_MARK "/io.containerd.sandbox.controller.v1.shim/"
#define LAYOUT_SKIFF_DIR "skiff"
#define LAYOUT_TASKS_DIR "tasks"
/* Before a pod keeper's hash (docs/keeper-protocol.md), so its files never meet a group's. */
#define LAYOUT_POD_PREFIX "k-"
#define LAYOUT_INIT_PID_FILE "init.pid"
#define LAYOUT_OCI_RUNTIME_FILE "oci-runtime.json"
/* The members of LAYOUT_OCI_RUNTIME_FILE: the binary's absolute path, and its --root. */
#define LAYOUT_OCI_RUNTIME_BINARY "binary"
#define LAYOUT_OCI_RUNTIME_ROOT "root"
/* containerd's identifier rule (namespaces and ids): at most this long. */
#define LAYOUT_NAME_MAX 76

/* Whether s follows containerd's identifier rule, so it can name a path component. */
int layout_safe_name(const char *s);

/* snprintf that fails (-1) instead of truncating: a cut path names another file. */
int layout_path(char *out, size_t size, const char *format, ...) __attribute__((format(printf, 3, 4)));

/* containerd's state dir: the part of a bundle path before LAYOUT_BUNDLES_MARK or LAYOUT_SANDBOXES_MARK. -1 when there is none. */
int layout_state_of_bundle(const char *bundle, char *out, size_t size);

/* Whether the bundle is a sandbox's (under LAYOUT_SANDBOXES_MARK), which has no config.json. */
int layout_is_sandbox_bundle(const char *bundle);

/* <state>/skiff/<ns>, a group's serving process's state dir. */
int layout_server_state_dir(char *out, size_t size, const char *state, const char *ns);

/* <state>/skiff/<ns>/tasks/<id>. */
int layout_task_dir(char *out, size_t size, const char *state, const char *ns, const char *id);

/* FNV-1a over (containerd address, namespace, group), each followed by a separator byte; a pod
 * keeper's hash is the same over its pod's name. */
uint64_t layout_group_hash(const char *address, const char *ns, const char *group);

/* <state>/skiff/<hash as 16 hex digits><suffix>: suffix ".sock" or ".lock". */
int layout_group_file(char *out, size_t size, const char *state, uint64_t hash, const char *suffix);

/* <state>/skiff/k-<hash as 16 hex digits><suffix>: a pod keeper's ".sock" or ".lock". */
int layout_pod_file(char *out, size_t size, const char *state, uint64_t hash, const char *suffix);

#endif
