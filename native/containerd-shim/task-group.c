/* task-group.h: the lookups of a task's group and pod. */
#include "task-group.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "json-read.h"
#include "read-all.h"
#include "task-layout.h"

#define MAX_CONFIG (4 << 20)

int pods_apart(struct fault *why) {
  const char *policy = getenv("SKIFF_SHIM_GROUP");
  if (policy == NULL || *policy == '\0' || strcmp(policy, "namespace") == 0) return 0;
  if (strcmp(policy, "pod") == 0) return 1;
  return fault_set(why, policy, "SKIFF_SHIM_GROUP in containerd's environment must be `namespace` or `pod`, not");
}

/* The serving group config.json's text names, into out ("" for the namespace's): the runc group
 * annotation, else with `apart` the CRI sandbox id. JSON_FOUND, or what was wrong with *key. */
static enum json_result group_in(const char *json, size_t len, int apart, char *out, size_t size, const char **key) {
  const char *const group[] = {"annotations", GROUP_ANNOTATION}, *const sandbox[] = {"annotations", SANDBOX_ANNOTATION};
  *key = GROUP_ANNOTATION;
  enum json_result r = json_string_at(json, len, group, 2, out, size);
  if (r == JSON_ABSENT && apart) {
    *key = SANDBOX_ANNOTATION;
    r = json_string_at(json, len, sandbox, 2, out, size);
  }
  if (r == JSON_ABSENT) out[0] = '\0';
  return r == JSON_ABSENT ? JSON_FOUND : r;
}

/* -1 with why annotation `key` of config.json (at path) could not be read: r is neither JSON_FOUND nor JSON_ABSENT. */
static int annotation_fault(enum json_result r, const char *path, const char *key, struct fault *why) {
  if (r == JSON_MALFORMED) return fault_set(why, fault_hold(why, path), "the bundle's config.json is not valid JSON");
  return fault_set(why, NULL, "the annotation %s in %s is %s", key, path, json_result_text(r));
}

/* The bundle's config.json (its path in path, PATH_MAX), malloc'd; NULL with why when it cannot be read. */
static char *bundle_config(const char *bundle, char *path, size_t *len, struct fault *why) {
  if (layout_path(path, PATH_MAX, "%s/config.json", bundle) != 0) {
    fault_set(why, fault_hold(why, bundle), "a path is longer than PATH_MAX; give containerd a shorter state dir");
    return NULL;
  }
  char *json = read_file(path, MAX_CONFIG, len);
  if (json == NULL) {
    int err = errno;
    fault_set(why, fault_hold(why, path), "cannot read config.json in the bundle (%s)", strerror(err));
  }
  return json;
}

/* A sandbox's bundle has no config.json (docs/sandbox-api.md): the sandbox is its own pod, the
 * one its containers' sandbox-id annotation names, and its group is the namespace's or, with
 * pods apart, the pod's. */
static int sandbox_names(const char *bundle, const char *name, char *out, size_t size, struct fault *why) {
  if (layout_path(out, size, "%s", name) == 0) return 0;
  return fault_set(why, fault_hold(why, bundle), "a path is longer than PATH_MAX; give containerd a shorter state dir");
}

int task_group(const char *bundle, int apart, char *out, size_t size, struct fault *why) {
  if (layout_is_sandbox_bundle(bundle)) {
    const char *id = strrchr(bundle, '/');
    return sandbox_names(bundle, apart && id != NULL ? id + 1 : "", out, size, why);
  }
  char path[PATH_MAX];
  size_t len = 0;
  char *json = bundle_config(bundle, path, &len, why);
  if (json == NULL) return -1;
  const char *key = GROUP_ANNOTATION;
  enum json_result r = group_in(json, len, apart, out, size, &key);
  free(json);
  return r == JSON_FOUND ? 0 : annotation_fault(r, path, key, why);
}

int task_pod(const char *bundle, const char *id, char *out, size_t size, struct fault *why) {
  if (layout_is_sandbox_bundle(bundle)) return sandbox_names(bundle, id, out, size, why);
  const char *const group[] = {"annotations", GROUP_ANNOTATION}, *const sandbox[] = {"annotations", SANDBOX_ANNOTATION};
  char path[PATH_MAX];
  size_t len = 0;
  char *json = bundle_config(bundle, path, &len, why);
  int rc = json == NULL ? -1 : 0;
  enum json_result g = JSON_ABSENT, s = JSON_ABSENT;
  if (json != NULL) {
    g = json_string_at(json, len, group, 2, out, size);
    if (g != JSON_FOUND) s = json_string_at(json, len, sandbox, 2, out, size);
    free(json);
  }
  /* The first thing wrong in the rule's order: the sandbox id is not asked for while the group annotation is there. */
  if (rc == 0 && g != JSON_FOUND && g != JSON_ABSENT) rc = annotation_fault(g, path, GROUP_ANNOTATION, why);
  else if (rc == 0 && g == JSON_ABSENT && s != JSON_FOUND && s != JSON_ABSENT)
    rc = annotation_fault(s, path, SANDBOX_ANNOTATION, why);
  if (g == JSON_FOUND || s == JSON_FOUND) return rc;
  if (layout_path(out, size, "%s", id) != 0 && rc == 0)
    rc = fault_set(why, "-id", "a path is longer than PATH_MAX; give containerd a shorter state dir");
  return rc;
}
