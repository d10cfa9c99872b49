/* parse_sandbox_flags: see sandbox-flags.h. */
#include "sandbox-flags.h"
#include "refuse.h"

#include <stdio.h>
#include <string.h>

#define USAGE "containerd-shim-skiff-v2 sandbox --pid-file FILE [--netns PATH] [--hostname NAME] " \
              "[--share-pid] [--host-ipc] [--host-uts] [--sysctl KEY=VALUE]..."

static int is_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '-' || c == '/';
}

/* The key as a path under /proc/sys (sandbox-flags.h); key_len <= SANDBOX_SYSCTL_KEY_MAX. */
static void key_path(const struct sandbox_sysctl *s, char *out) {
  int slashed = memchr(s->key, '/', s->key_len) != NULL;
  for (size_t i = 0; i < s->key_len; i++) out[i] = !slashed && s->key[i] == '.' ? '/' : s->key[i];
  out[s->key_len] = '\0';
}

int sandbox_sysctl_path(const struct sandbox_sysctl *s, char *out, size_t size) {
  char key[SANDBOX_SYSCTL_KEY_MAX + 1];
  if (s->key_len > SANDBOX_SYSCTL_KEY_MAX) return -1;
  key_path(s, key);
  int n = snprintf(out, size, "/proc/sys/%s", key);
  return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* Every part between slashes is a name: none empty, none "." (".." was refused before). */
static int parts_named(const char *path) {
  for (const char *part = path;;) {
    const char *end = strchr(part, '/');
    size_t len = end != NULL ? (size_t)(end - part) : strlen(part);
    if (len == 0 || (len == 1 && part[0] == '.')) return 0;
    if (end == NULL) return 1;
    part = end + 1;
  }
}

static int starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* "KEY=VALUE" into the table; -1 with why. */
static int take_sysctl(struct sandbox_flags *f, const char *arg, char *why, size_t why_size) {
  if (f->sysctl_count == SANDBOX_SYSCTLS_MAX)
    return refuse(why, why_size, "--sysctl is given more than %d times: set the rest in the pod's containers",
                  SANDBOX_SYSCTLS_MAX);
  const char *eq = strchr(arg, '=');
  if (eq == NULL) return refuse(why, why_size, "--sysctl %s has no '=': give KEY=VALUE", arg);
  struct sandbox_sysctl *s = &f->sysctls[f->sysctl_count];
  s->key = arg;
  s->key_len = (size_t)(eq - arg);
  s->value = eq + 1;
  if (s->key_len == 0) return refuse(why, why_size, "--sysctl %s has an empty key: give KEY=VALUE", arg);
  if (s->key_len > SANDBOX_SYSCTL_KEY_MAX)
    return refuse(why, why_size, "--sysctl's key is longer than %d characters: give a sysctl's name",
                  SANDBOX_SYSCTL_KEY_MAX);
  for (size_t i = 0; i < s->key_len; i++)
    if (!is_key_char(arg[i]))
      return refuse(why, why_size, "--sysctl %s: a key is letters, digits and . _ - / only", arg);
  char key[SANDBOX_SYSCTL_KEY_MAX + 1];
  key_path(s, key);
  /* The key becomes a path under /proc/sys: nothing in it may lead out or name a directory. */
  if (strstr(key, "..") != NULL || !parts_named(key))
    return refuse(why, why_size, "--sysctl %s: the key has an empty part or '..': give a sysctl's name", arg);
  f->sysctl_count++;
  return 0;
}

/* A sysctl written in the host's namespace would change the host: each must be of one the pod has
 * of its own (Kubernetes' namespaced sysctls, and runc's rule for a container's). */
static int judge_sysctl(const struct sandbox_flags *f, const struct sandbox_sysctl *s, char *why, size_t why_size) {
  char key[SANDBOX_SYSCTL_KEY_MAX + 1];
  key_path(s, key);
  int len = (int)s->key_len;
  if (starts(key, "net/")) {
    if (f->netns == NULL)
      return refuse(why, why_size,
                    "--sysctl %.*s is of the network namespace, which is the host's without --netns: "
                    "give --netns or drop the sysctl",
                    len, s->key);
  } else if (starts(key, "fs/mqueue/") || (starts(key, "kernel/shm") && strchr(key + 7, '/') == NULL) ||
             (starts(key, "kernel/msg") && strchr(key + 7, '/') == NULL) || strcmp(key, "kernel/sem") == 0) {
    if (f->host_ipc)
      return refuse(why, why_size, "--sysctl %.*s is of the IPC namespace, which --host-ipc keeps the host's: drop one",
                    len, s->key);
  } else if (strcmp(key, "kernel/hostname") == 0 || strcmp(key, "kernel/domainname") == 0) {
    if (f->host_uts)
      return refuse(why, why_size, "--sysctl %.*s is of the UTS namespace, which --host-uts keeps the host's: drop one",
                    len, s->key);
  } else {
    return refuse(why, why_size,
                  "--sysctl %.*s is not of a pod's namespaces (net.*, kernel.shm*, kernel.msg*, kernel.sem, "
                  "fs.mqueue.*, kernel.hostname, kernel.domainname): it would change the host's",
                  len, s->key);
  }
  return 0;
}

enum { PID_FILE, NETNS, HOSTNAME, SYSCTL, SHARE_PID, HOST_IPC, HOST_UTS };
static const struct {
  const char *name, *value; /* value: what it takes, NULL for a switch */
} known[] = {
    [PID_FILE] = {"pid-file", "FILE"}, [NETNS] = {"netns", "PATH"},   [HOSTNAME] = {"hostname", "NAME"},
    [SYSCTL] = {"sysctl", "KEY=VALUE"}, [SHARE_PID] = {"share-pid", NULL}, [HOST_IPC] = {"host-ipc", NULL},
    [HOST_UTS] = {"host-uts", NULL},
};

static int lookup(const char *name, size_t len) {
  for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
    if (strlen(known[k].name) == len && strncmp(name, known[k].name, len) == 0) return (int)k;
  return -1;
}

/* A value flag given once: the keeper writes one command line, so a second is a mistake. */
static int take_once(const char **slot, const char *value, const char *name, char *why, size_t why_size) {
  if (*slot != NULL) return refuse(why, why_size, "--%s is given twice: give it once", name);
  *slot = value;
  return 0;
}

int parse_sandbox_flags(int argc, char *const *argv, struct sandbox_flags *f, char *why, size_t why_size) {
  memset(f, 0, sizeof *f);
  for (int i = 2; i < argc; i++) {
    const char *arg = argv[i];
    if (strncmp(arg, "--", 2) != 0) return refuse(why, why_size, "%s is not a flag: usage: %s", arg, USAGE);
    const char *name = arg + 2, *eq = strchr(name, '=');
    size_t len = eq != NULL ? (size_t)(eq - name) : strlen(name);
    int k = lookup(name, len);
    if (k < 0) return refuse(why, why_size, "unknown flag %.*s: usage: %s", (int)len + 2, arg, USAGE);
    if (known[k].value == NULL) {
      if (eq != NULL) return refuse(why, why_size, "--%s takes no value: give it alone", known[k].name);
      if (k == SHARE_PID) f->share_pid = 1;
      if (k == HOST_IPC) f->host_ipc = 1;
      if (k == HOST_UTS) f->host_uts = 1;
      continue;
    }
    /* A flag where the value should be means the value was left out. */
    const char *value = eq != NULL ? eq + 1 : i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0 ? argv[++i] : NULL;
    if (value == NULL || (value[0] == '\0' && k != SYSCTL))
      return refuse(why, why_size, "--%s needs a value: give --%s %s", known[k].name, known[k].name, known[k].value);
    int rc = k == PID_FILE   ? take_once(&f->pid_file, value, known[k].name, why, why_size)
             : k == NETNS    ? take_once(&f->netns, value, known[k].name, why, why_size)
             : k == HOSTNAME ? take_once(&f->hostname, value, known[k].name, why, why_size)
                             : take_sysctl(f, value, why, why_size);
    if (rc != 0) return rc;
  }
  if (f->pid_file == NULL)
    return refuse(why, why_size, "--pid-file is required: give --pid-file FILE, where the holder's pid is written");
  if (f->hostname != NULL && f->host_uts)
    return refuse(why, why_size, "--hostname names a UTS namespace of the pod's own, --host-uts keeps the host's: give one");
  for (int i = 0; i < f->sysctl_count; i++)
    if (judge_sysctl(f, &f->sysctls[i], why, why_size) != 0) return -1;
  return 0;
}
