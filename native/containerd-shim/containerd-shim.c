/*
 * containerd-shim-skiff-v2: the binary containerd runs for `--runtime io.containerd.skiff.v2`
 * (shim CLI protocol of containerd's runtime/v2/shim, see docs/containerd.md).
 *
 *   start   once per container. Finds the group's serving process by its socket and prints
 *           that address; only when none answers does it bind the socket and start one
 *           (node, dist/containerd.bundle.js) with the listener as fd 3, its own session,
 *           stdin/stdout on /dev/null and stderr on the bundle's `log` FIFO, so containerd's
 *           output pipes are never held. Prints only the address.
 *   delete  after containerd's connection to the task closed. A task the serving process
 *           deleted has left nothing: print an empty DeleteResponse. Otherwise what held the
 *           connection died (the pod keeper, or the serving process without one): tell the
 *           serving process to forget the task (forget.c), `<OCI runtime> delete --force` with
 *           the binary and root the task's record names (kills what still runs), unmount the
 *           rootfs, remove the task's files, print DeleteResponse{pid, 137, now} as runc's shim does.
 *   keep    the pod keeper (native/keeper/, docs/keeper-protocol.md): `start` runs one per
 *           pod and prints the pod socket instead, unless containerd's environment has
 *           SKIFF_KEEPER=0.
 * The paths it reads and writes are docs/on-disk-layout.md's, through native/common/task-layout.h.
 *
 * Written in C because containerd execs it for every container: Node's start-up would be
 * most of a `ctr run`. Its flags: flags.c; its reply to delete: delete-response.c.
 *
 *   serve   not containerd's: a node's systemd unit runs it for a namespace (serve.c,
 *           docs/node-daemon.md), so the namespace's serving process is up before the first pod.
 *
 *   -info   containerd 2.x's question before a task of a runtime type other than runc's: the
 *           shim's containerd.types.RuntimeInfo on stdout (runtime-info.c), the runtime options
 *           (an Any) on stdin, as containerd's runc shim answers it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap.h"
#include "delete-response.h"
#include "exec-report.h"
#include "flags.h"
#include "forget.h"
#include "json-read.h"
#include "keeper-start.h"
#include "keeper.h"
#include "package-code.h"
#include "root-owned.h"
#include "runtime-info.h"
#include "serve.h"
#include "serving-argv.h"
#include "task-layout.h"
#include "unix-socket.h"

#define GROUP_ANNOTATION "io.containerd.runc.v2.group"
#define SANDBOX_ANNOTATION "io.kubernetes.cri.sandbox-id"
#define MAX_CONFIG (4 << 20)
#define MAX_RECORD (64 << 10)
/* How long `delete` waits for the serving process to forget a task (docs/keeper-protocol.md, "`delete`"). */
#define FORGET_WAIT_MS 1000
#define SUN_PATH_SIZE sizeof(((struct sockaddr_un *)0)->sun_path)

_Noreturn static void die(const char *what, const char *detail) {
  fprintf(stderr, "containerd-shim-skiff-v2: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(1);
}

/* A path from layout_path & co., or one line naming what was too long. */
static void path_or_die(int rc, const char *what) {
  if (rc != 0) die("a path is longer than PATH_MAX; give containerd a shorter state dir", what);
}

/* All of fd's bytes up to max (more is an error: EFBIG), NUL-terminated in a malloc'd buffer; NULL with errno. */
static unsigned char *read_all(int fd, size_t max, size_t *len) {
  unsigned char *buf = malloc(max + 2);
  size_t n = 0;
  ssize_t r = 0;
  while (buf != NULL && n <= max && ((r = read(fd, buf + n, max + 1 - n)) > 0 || (r < 0 && errno == EINTR)))
    if (r > 0) n += (size_t)r;
  int err = buf == NULL ? ENOMEM : r < 0 ? errno : n > max ? EFBIG : 0;
  if (err != 0) {
    free(buf);
    errno = err;
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* A file's whole text (NUL-terminated, its length in *len), NULL with errno when it cannot be read; EFBIG past max. */
static char *read_file(const char *path, size_t max, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  size_t n = 0;
  char *text = (char *)read_all(fd, max, &n);
  int err = errno;
  close(fd);
  errno = err;
  if (text != NULL && len != NULL) *len = n;
  return text;
}

/*
 * Why a lookup has no sure answer, as the one line a caller that cannot go on ends with (die_of):
 * `what`, then ": " and `detail` unless it is NULL. A caller that can go on drops it.
 */
struct fault {
  char what[PATH_MAX + 160];
  const char *detail; /* NULL, or a string that outlives the fault: the environment's, or `held` */
  char held[PATH_MAX];
};

/* Sets *why; -1, what a lookup returns with it. */
__attribute__((format(printf, 3, 4))) static int fault_set(struct fault *why, const char *detail, const char *format,
                                                            ...) {
  va_list ap;
  why->detail = detail;
  va_start(ap, format);
  vsnprintf(why->what, sizeof why->what, format, ap);
  va_end(ap);
  return -1;
}

/* A copy of `detail` kept in the fault, for one that would not outlive it (a lookup's own path). */
static const char *fault_hold(struct fault *why, const char *detail) {
  snprintf(why->held, sizeof why->held, "%s", detail);
  return why->held;
}

_Noreturn static void die_of(const struct fault *why) {
  die(why->what, why->detail);
}

/* Whether Kubernetes pods get a serving process each (SKIFF_SHIM_GROUP=pod in containerd's
 * environment) instead of sharing their namespace's (the default, `namespace`): one Node process
 * per pod costs ~55 MB and a Node start-up per RunPodSandbox (docs/containerd.md, "Grouping and
 * failure domain"). 1 or 0; -1 with why for any other value (which a caller that goes on takes
 * for the default). */
static int pods_apart(struct fault *why) {
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

/* The group a container's task is served in, into out: the runc group annotation when the container
 * has one, as containerd's runc shim; else the CRI sandbox id when pods are kept `apart`
 * (pods_apart); else the namespace's default group (""). 0, or -1 with why. */
static int task_group(const char *bundle, int apart, char *out, size_t size, struct fault *why) {
  char path[PATH_MAX];
  size_t len = 0;
  char *json = bundle_config(bundle, path, &len, why);
  if (json == NULL) return -1;
  const char *key = GROUP_ANNOTATION;
  enum json_result r = group_in(json, len, apart, out, size, &key);
  free(json);
  return r == JSON_FOUND ? 0 : annotation_fault(r, path, key, why);
}

/* The pod a task belongs to, which has one keeper, into out: as the runc shim groups, its group
 * annotation, else the CRI sandbox id, else the task's own id (a container outside a pod is its
 * own pod). 0, or -1 with why when config.json could not be read or an annotation was bad; out then
 * holds the first of those that could be read (else the id, else ""), for a caller that goes on. */
static int task_pod(const char *bundle, const char *id, char *out, size_t size, struct fault *why) {
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

/* The group's listener, 0600; without SOCK_CLOEXEC: it becomes the serving process's fd 3. */
static int listen_unix(const char *path) {
  int fd = unix_listen(path, 0, 128);
  if (fd < 0) die("cannot listen on the group socket", strerror(errno));
  return fd;
}

static void write_address(const char *bundle, const char *address) {
  char path[PATH_MAX], tmp[PATH_MAX];
  path_or_die(layout_path(path, sizeof path, "%s/address", bundle), bundle);
  path_or_die(layout_path(tmp, sizeof tmp, "%s/.address.%d", bundle, (int)getpid()), bundle);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  size_t len = strlen(address);
  int ok = fd >= 0 && write(fd, address, len) == (ssize_t)len;
  if (fd >= 0 && close(fd) != 0) ok = 0;
  if (!ok || rename(tmp, path) != 0) die("cannot write the bundle's address file", strerror(errno));
}

/* The package directory: this binary is <pkg>/build/Release/ or <pkg>/prebuilds/<platform>-<arch>/containerd-shim-skiff-v2. */
static void package_dir(char *out, size_t size) {
  ssize_t n = readlink("/proc/self/exe", out, size - 1);
  if (n < 0) die("cannot find this binary", strerror(errno));
  out[n] = '\0';
  for (int up = 0; up < 3; up++) {
    char *slash = strrchr(out, '/');
    if (slash == NULL) die("unexpected location of this binary", out);
    *slash = '\0';
  }
}

/* Says `line` where containerd's log shows it (the bundle's `log` FIFO, which containerd copies to its
 * own output) and where its client does (this program's output, which containerd puts in the error),
 * then exits. */
static void die_logged(const char *bundle, const char *line) {
  char log_path[PATH_MAX];
  if (bundle != NULL && layout_path(log_path, sizeof log_path, "%s/log", bundle) == 0) {
    int log = open(log_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (log >= 0) {
      dprintf(log, "containerd-shim-skiff-v2: %s\n", line);
      close(log);
    }
  }
  die(line, NULL);
}

static int executable_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* `program` in a directory of containerd's PATH, into out; 0 when found. */
static int program_on_path(const char *program, char *out, size_t size) {
  const char *path = getenv("PATH");
  while (path != NULL && *path != '\0') {
    size_t len = strcspn(path, ":");
    if (len > 0 && layout_path(out, size, "%.*s/%s", (int)len, path, program) == 0 && executable_file(out)) return 0;
    path += len + (path[len] == ':');
  }
  return -1;
}

/* The Node.js that runs the serving process (docs/install.md, "Which Node.js the shim runs"):
 * SKIFF_NODE in containerd's environment; else the node of the npm prefix skiff was installed into
 * globally (<prefix>/lib/node_modules/skiff-cli beside <prefix>/bin/node: where `npm install -g` and
 * the node it came with are); else the one that built skiff in a checkout (dist/node-path, not in the
 * package); else node on containerd's PATH, which a systemd unit keeps short. None: one line. */
static void choose_node(const char *pkg, const char *bundle, char *out, size_t size) {
  char line[3 * PATH_MAX];
  const char *chosen = getenv("SKIFF_NODE");
  if (chosen != NULL && *chosen != '\0') {
    path_or_die(layout_path(out, size, "%s", chosen), "SKIFF_NODE");
    if (executable_file(out)) return;
    snprintf(line, sizeof line,
             "SKIFF_NODE=%s in containerd's environment is not an executable file: set it to the path of "
             "Node.js 20 or newer (`command -v node` where skiff was installed)",
             chosen);
    die_logged(bundle, line);
  }
  char prefix[PATH_MAX], beside[PATH_MAX + 64];
  snprintf(prefix, sizeof prefix, "%s", pkg);
  snprintf(beside, sizeof beside, "skiff (%s) is not in an npm prefix's lib/node_modules", pkg);
  char *mark = strstr(prefix, "/lib/node_modules/");
  if (mark != NULL && strchr(mark + strlen("/lib/node_modules/"), '/') == NULL) {
    *mark = '\0';
    if (layout_path(out, size, "%s/bin/node", prefix) == 0 && executable_file(out)) return;
    snprintf(beside, sizeof beside, "%s/bin/node (skiff's npm prefix) does not exist", prefix);
  }
  char recorded_path[PATH_MAX];
  path_or_die(layout_path(recorded_path, sizeof recorded_path, "%s/dist/node-path", pkg), pkg);
  char *recorded = read_file(recorded_path, PATH_MAX, NULL);
  if (recorded != NULL) {
    recorded[strcspn(recorded, "\n")] = '\0';
    int ok = recorded[0] != '\0' && layout_path(out, size, "%s", recorded) == 0 && executable_file(out);
    free(recorded);
    if (ok) return;
  }
  if (program_on_path("node", out, size) == 0) return;
  const char *path = getenv("PATH");
  snprintf(line, sizeof line,
           "no Node.js to run skiff's serving process: SKIFF_NODE is unset, %s, and containerd's PATH (%s) "
           "has no node; set SKIFF_NODE=/path/to/node (Node.js 20 or newer) in containerd's environment "
           "(systemctl edit containerd: Environment=SKIFF_NODE=...)",
           beside, path != NULL ? path : "unset");
  die_logged(bundle, line);
}

/* As root, a file whose content or path a user other than root can change is refused in one
 * line (containerd's log and its client): it would run that user's code as root. */
static void refuse(const char *bundle, const char *path, const char *why) {
  char line[3 * PATH_MAX + 320];
  snprintf(line, sizeof line,
           "refusing to run %s as root: %s; make it and every directory above it owned by root and writable by "
           "root only (chown root:root, chmod go-w), or install skiff and Node.js under a root-owned prefix "
           "(docs/install.md)",
           path, why);
  die_logged(bundle, line);
}

/* The Node.js that runs the serving process (choose_node), and as root only when root alone can
 * change it and the package's code (package-code.c; docs/install.md, "Which Node.js the shim
 * runs"). As root, `out` is the path judged with its links resolved, which the serving process
 * and the keeper run: a link read again later could lead elsewhere. */
static void find_node(const char *pkg, const char *bundle, char *out, size_t size) {
  choose_node(pkg, bundle, out, size);
  if (geteuid() != 0) return;
  char why[PATH_MAX + 64], resolved[PATH_MAX], bad[PATH_MAX];
  if (root_owned_chain(out, resolved, sizeof resolved, why, sizeof why) != 0) refuse(bundle, out, why);
  path_or_die(layout_path(out, size, "%s", resolved), resolved);
  if (package_code_judge(pkg, bad, sizeof bad, why, sizeof why) != 0) refuse(bundle, bad, why);
}

/* What a group's serving process runs with besides its Node and socket, each PATH_MAX: the
 * script, its --state-dir and containerd's ttrpc address (TTRPC_ADDRESS, else <address>.ttrpc). */
static void serving_paths(const struct flags *f, const char *state, const char *pkg, char *script, char *state_dir,
                          char *ttrpc) {
  path_or_die(layout_path(script, PATH_MAX, "%s/bin/containerd-daemon.js", pkg), pkg);
  path_or_die(layout_server_state_dir(state_dir, PATH_MAX, state, f->namespace), state);
  const char *given = getenv("TTRPC_ADDRESS");
  if (given != NULL && *given != '\0') path_or_die(layout_path(ttrpc, PATH_MAX, "%s", given), "TTRPC_ADDRESS");
  else path_or_die(layout_path(ttrpc, PATH_MAX, "%s.ttrpc", f->address), "-address");
}

/* Starts the serving process: node <pkg>/bin/containerd-daemon.js with the listener on fd 3. */
static void spawn_server(const struct flags *f, int listener, const char *socket_path, const char *state,
                         const char *bundle, const char *pkg, const char *node) {
  char script[PATH_MAX], state_dir[PATH_MAX], ttrpc[PATH_MAX], log_path[PATH_MAX];
  serving_paths(f, state, pkg, script, state_dir, ttrpc);
  path_or_die(layout_path(log_path, sizeof log_path, "%s/log", bundle), bundle);
  /* A close-on-exec pipe tells whether the exec worked: a server that never starts would
   * leave containerd's first call waiting on a socket nobody accepts on. */
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) die("cannot make a pipe", strerror(errno));
  pid_t pid = fork();
  if (pid < 0) die("cannot fork the serving process", strerror(errno));
  if (pid > 0) {
    close(report[1]);
    int err = exec_report_wait(report[0]);
    if (err != 0) {
      char what[PATH_MAX + 160];
      serving_exec_error(what, sizeof what, node, err);
      unlink(socket_path);
      die_logged(bundle, what);
    }
    return;
  }
  close(report[0]);
  setsid();
  if (chdir("/") != 0) _exit(127);
  int null = open("/dev/null", O_RDWR);
  /* containerd holds the log FIFO open for reading, so a non-blocking open succeeds at once;
   * it stays non-blocking: a log line nobody reads is dropped, the server never stalls on it. */
  int log = open(log_path, O_WRONLY | O_NONBLOCK);
  dup2(null, 0);
  dup2(null, 1);
  dup2(log >= 0 ? log : null, 2);
  if (listener != 3) {
    dup2(listener, 3);
    close(listener);
  }
  const struct serving_command command = {
      .node = node,
      .script = script,
      .namespace = f->namespace,
      .address = f->address,
      .ttrpc_address = ttrpc,
      .state_dir = state_dir,
      .socket = socket_path,
      .debug = f->debug,
  };
  serving_exec(&command, report[1]);
}

/* The bundle (-bundle, else the working directory, as containerd runs the binary) and the state dir above it. */
static void bundle_and_state(const struct flags *f, char *bundle, char *state) {
  if (f->bundle != NULL) path_or_die(layout_path(bundle, PATH_MAX, "%s", f->bundle), "-bundle");
  else if (getcwd(bundle, PATH_MAX) == NULL) die("cannot read the bundle dir", strerror(errno));
  if (!layout_safe_name(f->namespace) || !layout_safe_name(f->id))
    die("-namespace and -id must be containerd identifiers (letters and digits in runs joined by . _ -)", f->id);
  if (layout_state_of_bundle(bundle, state, PATH_MAX) != 0)
    die("the bundle is not under containerd's " LAYOUT_BUNDLES_MARK " dir", bundle);
}

/* <state>/skiff, made 0700 when missing: the groups' and the pod keepers' sockets and locks. */
static void make_skiff_dir(const char *state) {
  char dir[PATH_MAX];
  path_or_die(layout_path(dir, sizeof dir, "%s/" LAYOUT_SKIFF_DIR, state), state);
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) die("cannot make skiff's state dir", strerror(errno));
}

/* The socket (within sun_path) and lock of the group that serves the task in `bundle`, each PATH_MAX. */
static void group_files(const struct flags *f, const char *state, const char *bundle, char *socket_path,
                        char *lock_path) {
  char group[4096];
  struct fault why;
  /* Judged first: a bad policy is refused for every container, not only those it would decide. */
  int apart = pods_apart(&why);
  if (apart < 0 || task_group(bundle, apart, group, sizeof group, &why) != 0) die_of(&why);
  uint64_t h = layout_group_hash(f->address, f->namespace, group);
  make_skiff_dir(state);
  if (layout_group_file(socket_path, SUN_PATH_SIZE, state, h, ".sock") != 0)
    die("the group socket path is too long for a unix socket; give containerd a shorter state dir", state);
  path_or_die(layout_group_file(lock_path, PATH_MAX, state, h, ".lock"), state);
}

/* Pod keepers (docs/keeper-protocol.md) are the default; SKIFF_KEEPER=0 serves without them
 * (docs/failure-domains.md: then the serving process is the failure domain of its group). The
 * serving process reads the same rule (src/infrastructure/entry/containerd.ts). */
static int keeper_wanted(void) {
  const char *keeper = getenv("SKIFF_KEEPER");
  return keeper == NULL || strcmp(keeper, "0") != 0;
}

/* `start` with a keeper: containerd dials the pod's keeper, which relays to the serving process. */
static void answer_start(int v23, const char *address);

static int start_keeper(const struct flags *f, int v23) {
  char bundle[PATH_MAX], state[PATH_MAX], pod[4096], socket_path[PATH_MAX], lock_path[PATH_MAX];
  char log_path[PATH_MAX], pkg[PATH_MAX], node[PATH_MAX], why[PATH_MAX + 256], address[PATH_MAX + 8];
  bundle_and_state(f, bundle, state);
  /* Said here in the same one line as without the keeper, not by the keeper in containerd's log:
   * a bad SKIFF_SHIM_GROUP, no Node.js. */
  struct fault bad;
  if (pods_apart(&bad) < 0) die_of(&bad);
  package_dir(pkg, sizeof pkg);
  find_node(pkg, bundle, node, sizeof node);
  if (task_pod(bundle, f->id, pod, sizeof pod, &bad) != 0) die_of(&bad);
  uint64_t h = layout_group_hash(f->address, f->namespace, pod);
  make_skiff_dir(state);
  if (layout_pod_file(socket_path, SUN_PATH_SIZE, state, h, ".sock") != 0)
    die("the pod socket path is too long for a unix socket; give containerd a shorter state dir", state);
  path_or_die(layout_pod_file(lock_path, sizeof lock_path, state, h, ".lock"), state);
  path_or_die(layout_path(log_path, sizeof log_path, "%s/log", bundle), bundle);
  char *argv[] = {"containerd-shim-skiff-v2", "-namespace", (char *)f->namespace, "-address", (char *)f->address,
                  "-id", (char *)f->id, "-bundle", bundle, "keep", NULL, NULL};
  if (f->debug) argv[9] = "-debug", argv[10] = "keep";
  if (keeper_ensure(socket_path, lock_path, argv, log_path, why, sizeof why) != 0) die(why, NULL);
  snprintf(address, sizeof address, "unix://%s", socket_path);
  write_address(bundle, address);
  answer_start(v23, address);
  return 0;
}

/* `keep`: the pod keeper, run by `start` above; it derives the serving group as `start` does. */
static int do_keep(const struct flags *f) {
  struct keeper_config c;
  char bundle[PATH_MAX], state[PATH_MAX], pkg[PATH_MAX], ttrpc[PATH_MAX];
  memset(&c, 0, sizeof c);
  bundle_and_state(f, bundle, state);
  group_files(f, state, bundle, c.group_socket, c.group_lock);
  package_dir(pkg, sizeof pkg);
  find_node(pkg, bundle, c.node, sizeof c.node);
  serving_paths(f, state, pkg, c.script, c.state_dir, ttrpc);
  c.namespace = f->namespace;
  c.address = f->address;
  c.ttrpc_address = ttrpc;
  c.debug = f->debug;
  return keeper_main(&c);
}

/* The most of stdin start keeps: containerd 2.3's BootstrapParams are a few hundred bytes (with the runtime options). */
#define MAX_BOOTSTRAP_INPUT (1 << 20)

/*
 * Which daemon runs this start, from stdin, read to its end (bootstrap.h): 1 for containerd 2.3
 * and later (a BootstrapParams of this -id and -namespace), 0 for an older one (the runtime
 * options as an Any, or nothing). Either way the options are left: Create carries them again,
 * where they are read. More than MAX_BOOTSTRAP_INPUT bytes is no BootstrapParams of containerd's.
 */
static int bootstrap_caller(const struct flags *f) {
  unsigned char *in = malloc(MAX_BOOTSTRAP_INPUT);
  if (in == NULL) die("out of memory", NULL);
  size_t len = 0;
  ssize_t r;
  char sink[4096];
  while (len < MAX_BOOTSTRAP_INPUT && ((r = read(0, in + len, MAX_BOOTSTRAP_INPUT - len)) > 0 || (r < 0 && errno == EINTR)))
    if (r > 0) len += (size_t)r;
  int whole = len < MAX_BOOTSTRAP_INPUT;
  while ((r = read(0, sink, sizeof sink)) > 0 || (r < 0 && errno == EINTR)) whole = 0;
  struct bootstrap_params params;
  int v23 = whole && bootstrap_params_of(in, len, f->id, f->namespace, &params);
  free(in);
  return v23;
}

/*
 * start's answer: to containerd 2.3 a BootstrapResult (ttrpc, task API 2), as its shims answer;
 * to an older daemon the address as text, the only answer 1.6 reads and one 2.2 cannot take as
 * protobuf (upstream's 2.3 shims once sent 2.2 protobuf, which it dialled as an address).
 */
static void answer_start(int v23, const char *address) {
  if (!v23) {
    fputs(address, stdout);
    return;
  }
  unsigned char *out = malloc(bootstrap_result_max(strlen(address)));
  if (out == NULL) die("out of memory", NULL);
  size_t len = bootstrap_result_encode(out, address);
  int ok = fwrite(out, 1, len, stdout) == len && fflush(stdout) == 0;
  free(out);
  if (!ok) die("cannot write the BootstrapResult to stdout", strerror(errno));
}

static int do_start(const struct flags *f) {
  int v23 = bootstrap_caller(f);
  if (keeper_wanted()) return start_keeper(f, v23);
  char bundle[PATH_MAX], state[PATH_MAX], socket_path[PATH_MAX], lock_path[PATH_MAX];
  bundle_and_state(f, bundle, state);
  group_files(f, state, bundle, socket_path, lock_path);
  char address[PATH_MAX + 8];
  snprintf(address, sizeof address, "unix://%s", socket_path);

  if (!unix_answers(socket_path)) {
    /* Two starts of one group at once: one binds and spawns, the other finds it serving. */
    int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock < 0 || flock(lock, LOCK_EX) != 0) die("cannot lock the group", strerror(errno));
    if (!unix_answers(socket_path)) {
      /* Found before the socket is bound: a start that fails leaves no socket behind. */
      char pkg[PATH_MAX], node[PATH_MAX];
      package_dir(pkg, sizeof pkg);
      find_node(pkg, bundle, node, sizeof node);
      int listener = listen_unix(socket_path);
      spawn_server(f, listener, socket_path, state, bundle, pkg, node);
      close(listener);
    }
    close(lock);
  }
  write_address(bundle, address);
  answer_start(v23, address);
  return 0;
}

#define DEFAULT_STATE "/run/containerd"

/* `serve`: the namespace's serving process kept by a systemd unit (serve.c, docs/node-daemon.md),
 * on the socket `start` and the keepers derive for the namespace's default group. */
static int do_serve(const struct flags *f) {
  if (!layout_safe_name(f->namespace))
    die("-namespace must be a containerd namespace (letters and digits in runs joined by . _ -)", f->namespace);
  if (f->address[0] != '/') die("-address must be containerd's socket path, as containerd gives it to shims", f->address);
  if (!keeper_wanted())
    die("serve keeps a serving process behind pod keepers; SKIFF_KEEPER=0 serves without them: unset it", NULL);
  struct fault bad;
  int apart = pods_apart(&bad);
  if (apart < 0) die_of(&bad);
  if (apart)
    die("serve keeps the namespace's serving process; SKIFF_SHIM_GROUP=pod gives each pod its own: unset it", NULL);
  const char *state = f->state != NULL ? f->state : DEFAULT_STATE;
  /* The serving process works from / (serve.c): a relative path would name another directory there. */
  if (state[0] != '/') die("-state must be containerd's state dir as an absolute path", state);
  char socket_path[PATH_MAX], lock_path[PATH_MAX], pid_file[PATH_MAX], pkg[PATH_MAX], node[PATH_MAX];
  char script[PATH_MAX], state_dir[PATH_MAX], ttrpc[PATH_MAX];
  make_skiff_dir(state);
  uint64_t h = layout_group_hash(f->address, f->namespace, "");
  if (layout_group_file(socket_path, SUN_PATH_SIZE, state, h, ".sock") != 0)
    die("the group socket path is too long for a unix socket; give containerd a shorter state dir", state);
  path_or_die(layout_group_file(lock_path, sizeof lock_path, state, h, ".lock"), state);
  path_or_die(layout_group_file(pid_file, sizeof pid_file, state, h, ".pid"), state);
  package_dir(pkg, sizeof pkg);
  find_node(pkg, NULL, node, sizeof node);
  serving_paths(f, state, pkg, script, state_dir, ttrpc);
  const struct serve_config c = {
      .command = {.node = node, .script = script, .namespace = f->namespace, .address = f->address,
                  .ttrpc_address = ttrpc, .state_dir = state_dir, .socket = socket_path, .debug = f->debug},
      .group_lock = lock_path,
      .pid_file = pid_file,
  };
  return serve_main(&c);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  return type == FTW_DP ? rmdir(path) : unlink(path);
}

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

static int do_delete(const struct flags *f) {
  char bundle[PATH_MAX], state[PATH_MAX], task_dir[PATH_MAX], path[PATH_MAX];
  bundle_and_state(f, bundle, state);
  path_or_die(layout_task_dir(task_dir, sizeof task_dir, state, f->namespace, f->id), state);
  remove_dead_keeper_socket(f, state, bundle);
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
  nftw(task_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  /* Nobody served when asked: a serving process started since (its listener is bound before it
   * reads the task records) may have taken the task over before its directory went. Told too. */
  if (told == FORGET_NOBODY) tell_forget(f, state, bundle);

  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  unsigned char out[DELETE_RESPONSE_MAX];
  /* 137 = 128 + SIGKILL: what `delete --force` did to it. */
  size_t len = delete_response_encode(out, pid, 137, (int64_t)now.tv_sec, (int32_t)now.tv_nsec);
  fwrite(out, 1, len, stdout);
  return 0;
}

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
static int do_info(void) {
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

int main(int argc, char **argv) {
  struct flags f;
  char why[256];
  if (parse_flags(argc, argv, &f, why, sizeof why) != 0) die(why, NULL);
  if (f.version) {
    printf("containerd-shim-skiff-v2 %s\n", SKIFF_VERSION);
    return 0;
  }
  if (f.info) return do_info();
  if (f.action != NULL && strcmp(f.action, "start") == 0) return do_start(&f);
  if (f.action != NULL && strcmp(f.action, "delete") == 0) return do_delete(&f);
  if (f.action != NULL && strcmp(f.action, "keep") == 0) return do_keep(&f);
  if (f.action != NULL && strcmp(f.action, "serve") == 0) return do_serve(&f);
  fprintf(stderr,
          "usage: containerd-shim-skiff-v2 -namespace NS -address ADDR -id ID [-bundle DIR] [-debug] start|delete\n"
          "       containerd-shim-skiff-v2 -info < options (containerd.types.RuntimeInfo on stdout)\n"
          "       containerd-shim-skiff-v2 -namespace NS -address ADDR [-state DIR] serve (a node's systemd unit)\n"
          "containerd runs this binary for --runtime io.containerd.skiff.v2 (see skiff's docs/containerd.md)\n");
  return 2;
}
