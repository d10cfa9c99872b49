/*
 * Which serving group and which pod a task belongs to, from containerd's environment and the
 * bundle's config.json. Each lookup returns what it found, and a fault when it could not be sure:
 * `start` and `keep` end with it, `delete` goes on with what was found.
 */
#ifndef SKIFF_SHIM_TASK_GROUP_H
#define SKIFF_SHIM_TASK_GROUP_H

#include <stddef.h>

#include "fail.h"

#define GROUP_ANNOTATION "io.containerd.runc.v2.group"
#define SANDBOX_ANNOTATION "io.kubernetes.cri.sandbox-id"

/* Whether Kubernetes pods get a serving process each (SKIFF_SHIM_GROUP=pod in containerd's
 * environment) instead of sharing their namespace's (the default, `namespace`): one Node process
 * per pod costs ~55 MB and a Node start-up per RunPodSandbox (docs/containerd.md, "Grouping and
 * failure domain"). 1 or 0; -1 with why for any other value (which a caller that goes on takes
 * for the default). */
int pods_apart(struct fault *why);

/* The group a container's task is served in, into out: the runc group annotation when the container
 * has one, as containerd's runc shim; else the CRI sandbox id when pods are kept `apart`
 * (pods_apart); else the namespace's default group (""). 0, or -1 with why. */
int task_group(const char *bundle, int apart, char *out, size_t size, struct fault *why);

/* The pod a task belongs to, which has one keeper, into out: as the runc shim groups, its group
 * annotation, else the CRI sandbox id, else the task's own id (a container outside a pod is its
 * own pod). 0, or -1 with why when config.json could not be read or an annotation was bad; out then
 * holds the first of those that could be read (else the id, else ""), for a caller that goes on. */
int task_pod(const char *bundle, const char *id, char *out, size_t size, struct fault *why);

#endif
