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
 *           deleted has left nothing: print an empty DeleteResponse. Otherwise the server
 *           died with it: `runc delete --force` (kills what still runs), unmount the rootfs,
 *           remove the task's files, print DeleteResponse{pid, 137, now} as runc's shim does.
 *   keep    the pod keeper (native/keeper/, docs/keeper-protocol.md): `start` runs it, and
 *           prints the pod socket instead, when containerd's environment has SKIFF_KEEPER=1.
 *
 * Written in C because containerd execs it for every container: Node's start-up would be
 * most of a `ctr run`. Flags as Go's flag package takes them: -name value, -name=value, --name.
 */
#define _GNU_SOURCE
#include <errno.h>
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

#include "keeper-start.h"
#include "keeper.h"

#define TASK_DIR_MARK "/io.containerd.runtime.v2.task/"
#define GROUP_ANNOTATION "io.containerd.runc.v2.group"
#define SANDBOX_ANNOTATION "io.kubernetes.cri.sandbox-id"
#define MAX_CONFIG (4 << 20)

struct flags {
  const char *namespace, *address, *publish_binary, *id, *bundle, *action;
  int debug;
};

static void die(const char *what, const char *detail) {
  fprintf(stderr, "containerd-shim-skiff-v2: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(1);
}

static void parse_flags(int argc, char **argv, struct flags *f) {
  memset(f, 0, sizeof *f);
  f->namespace = "";
  f->address = "";
  f->id = "";
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (arg[0] != '-') {
      f->action = arg;
      continue;
    }
    const char *name = arg + (arg[1] == '-' ? 2 : 1);
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    if (len == 5 && strncmp(name, "debug", 5) == 0) {
      f->debug = 1;
      continue;
    }
    const char *value = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
    if (value == NULL) die("flag needs a value", arg);
    if (len == 9 && strncmp(name, "namespace", len) == 0) f->namespace = value;
    else if (len == 7 && strncmp(name, "address", len) == 0) f->address = value;
    else if (len == 14 && strncmp(name, "publish-binary", len) == 0) f->publish_binary = value;
    else if (len == 2 && strncmp(name, "id", len) == 0) f->id = value;
    else if (len == 6 && strncmp(name, "bundle", len) == 0) f->bundle = value;
    /* Other flags of later containerd versions (-socket, -shim-*) carry nothing skiff needs. */
  }
}

/* An id or namespace that names a path component: containerd's identifier rule, loosely. */
static int safe_name(const char *s) {
  if (*s == '\0' || strlen(s) > 76 || strcmp(s, ".") == 0 || strcmp(s, "..") == 0) return 0;
  for (; *s; s++)
    if (*s == '/') return 0;
  return 1;
}

/* containerd's state dir from a bundle path <state>/io.containerd.runtime.v2.task/<ns>/<id>. */
static void state_dir_of(const char *bundle, char *out, size_t size) {
  const char *mark = strstr(bundle, TASK_DIR_MARK);
  if (mark == NULL || (size_t)(mark - bundle) >= size)
    die("the bundle is not under containerd's " TASK_DIR_MARK " dir", bundle);
  memcpy(out, bundle, (size_t)(mark - bundle));
  out[mark - bundle] = '\0';
}

static uint64_t fnv1a(uint64_t h, const char *s) {
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
  return (h ^ 0xff) * 0x100000001b3ULL; /* a separator, so ("ab","c") differs from ("a","bc") */
}

/* The string value of "key" in a JSON text (config.json's annotations), unescaped simply. */
static int json_string_after(const char *json, const char *key, char *out, size_t size) {
  char quoted[128];
  snprintf(quoted, sizeof quoted, "\"%s\"", key);
  const char *p = strstr(json, quoted);
  if (p == NULL) return 0;
  p += strlen(quoted);
  while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') p++;
  if (*p++ != ':') return 0;
  while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') p++;
  if (*p++ != '"') return 0;
  size_t n = 0;
  for (; *p && *p != '"' && n + 1 < size; p++) {
    if (*p == '\\' && p[1] != '\0') p++;
    out[n++] = *p;
  }
  out[n] = '\0';
  return *p == '"';
}

static char *read_file(const char *path, size_t max) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  char *buf = malloc(max + 1);
  size_t n = 0;
  ssize_t r;
  while (buf && n < max && (r = read(fd, buf + n, max - n)) > 0) n += (size_t)r;
  close(fd);
  if (buf) buf[n] = '\0';
  return buf;
}

/* Whether Kubernetes pods get a serving process each (SKIFF_SHIM_GROUP=pod in containerd's
 * environment) instead of sharing their namespace's (the default, `namespace`): one Node process
 * per pod costs ~55 MB and a Node start-up per RunPodSandbox (docs/containerd.md, "Grouping and
 * failure domain"). */
static int pods_apart(void) {
  const char *policy = getenv("SKIFF_SHIM_GROUP");
  if (policy == NULL || *policy == '\0' || strcmp(policy, "namespace") == 0) return 0;
  if (strcmp(policy, "pod") == 0) return 1;
  die("SKIFF_SHIM_GROUP in containerd's environment must be `namespace` or `pod`, not", policy);
  return 0;
}

/* The group a container's task is served in: the runc group annotation when the container has
 * one, as containerd's runc shim; else the CRI sandbox id when pods are kept apart; else the
 * namespace's default group. */
static void group_of(const char *bundle, char *out, size_t size) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/config.json", bundle);
  /* Judged first: a bad policy is refused for every container, not only those it would decide. */
  int apart = pods_apart();
  char *json = read_file(path, MAX_CONFIG);
  if (json == NULL) die("cannot read config.json in the bundle", path);
  if (!json_string_after(json, GROUP_ANNOTATION, out, size) &&
      !(apart && json_string_after(json, SANDBOX_ANNOTATION, out, size)))
    out[0] = '\0';
  free(json);
}

static int connect_unix(const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  strncpy(sa.sun_path, path, sizeof sa.sun_path - 1);
  if (fd < 0) return -1;
  int ok = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
  close(fd);
  return ok;
}

static int listen_unix(const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  strncpy(sa.sun_path, path, sizeof sa.sun_path - 1);
  unlink(path);
  mode_t old = umask(0177); /* 0600 from the start */
  int ok = fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(fd, 128) == 0;
  umask(old);
  if (!ok) die("cannot listen on the group socket", strerror(errno));
  return fd;
}

static void write_address(const char *bundle, const char *address) {
  char path[PATH_MAX], tmp[PATH_MAX];
  snprintf(path, sizeof path, "%s/address", bundle);
  snprintf(tmp, sizeof tmp, "%s/.address.%d", bundle, (int)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0 || write(fd, address, strlen(address)) != (ssize_t)strlen(address) || close(fd) != 0 ||
      rename(tmp, path) != 0)
    die("cannot write the bundle's address file", strerror(errno));
}

/* The package directory: this binary is <pkg>/build/Release/containerd-shim-skiff-v2. */
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

/* SKIFF_NODE in containerd's environment, else the Node.js that built skiff (dist/node-path,
 * containerd's PATH need not have one), else node on PATH. */
static void node_of(const char *pkg, char *node, size_t size) {
  const char *chosen = getenv("SKIFF_NODE");
  snprintf(node, size, "%s/dist/node-path", pkg);
  char *recorded = chosen != NULL && *chosen != '\0' ? NULL : read_file(node, size - 1);
  if (chosen != NULL && *chosen != '\0') {
    snprintf(node, size, "%s", chosen);
  } else if (recorded != NULL && recorded[0] != '\0') {
    recorded[strcspn(recorded, "\n")] = '\0';
    snprintf(node, size, "%s", recorded);
  } else {
    snprintf(node, size, "node");
  }
  free(recorded);
}

/* Starts the serving process: node <pkg>/bin/containerd-daemon.js with the listener on fd 3. */
static void spawn_server(const struct flags *f, int listener, const char *socket_path, const char *skiff_dir,
                         const char *bundle) {
  char pkg[PATH_MAX], node[PATH_MAX], script[PATH_MAX], state[PATH_MAX], log_path[PATH_MAX];
  package_dir(pkg, sizeof pkg);
  snprintf(script, sizeof script, "%s/bin/containerd-daemon.js", pkg);
  node_of(pkg, node, sizeof node);
  snprintf(state, sizeof state, "%s/%s", skiff_dir, f->namespace);
  snprintf(log_path, sizeof log_path, "%s/log", bundle);
  const char *ttrpc = getenv("TTRPC_ADDRESS");
  char ttrpc_default[PATH_MAX];
  if (ttrpc == NULL || *ttrpc == '\0') {
    snprintf(ttrpc_default, sizeof ttrpc_default, "%s.ttrpc", f->address);
    ttrpc = ttrpc_default;
  }
  /* A close-on-exec pipe tells whether the exec worked: a server that never starts would
   * leave containerd's first call waiting on a socket nobody accepts on. */
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) die("cannot make a pipe", strerror(errno));
  pid_t pid = fork();
  if (pid < 0) die("cannot fork the serving process", strerror(errno));
  if (pid > 0) {
    close(report[1]);
    int err = 0;
    ssize_t n = read(report[0], &err, sizeof err);
    close(report[0]);
    if (n == (ssize_t)sizeof err) {
      char what[PATH_MAX + 64];
      snprintf(what, sizeof what, "cannot run %s (%s); is Node.js installed?", node, strerror(err));
      unlink(socket_path);
      die(what, NULL);
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
  char *args[] = {node, script, "--namespace", (char *)f->namespace, "--address", (char *)f->address,
                  "--ttrpc-address", (char *)ttrpc, "--state-dir", state, "--socket", (char *)socket_path,
                  f->debug ? "--debug" : NULL, NULL};
  execvp(node, args);
  int err = errno;
  if (write(report[1], &err, sizeof err) < 0) _exit(127);
  _exit(127);
}

/* The pod keeper (docs/keeper-protocol.md) is opt-in while it only relays: SKIFF_KEEPER=1. */
static int keeper_wanted(void) {
  const char *keeper = getenv("SKIFF_KEEPER");
  return keeper != NULL && strcmp(keeper, "1") == 0;
}

/* The bundle (the working directory) and <state>/skiff, made 0700; with `pod`, the pod's
 * keeper socket k-<hash>.sock, else the serving group's <hash>.sock; and the socket's .lock. */
static void keeper_paths(const struct flags *f, int pod, char *bundle, char *skiff_dir, char *socket_path,
                         char *lock_path) {
  char state[PATH_MAX], name[256];
  if (getcwd(bundle, PATH_MAX) == NULL) die("cannot read the bundle dir", strerror(errno));
  if (!safe_name(f->namespace) || !safe_name(f->id)) die("-namespace and -id must be plain names", f->id);
  state_dir_of(bundle, state, sizeof state);
  if (pod) {
    /* The runc shim's group: its annotation, else the CRI sandbox id, else the container's own id. */
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/config.json", bundle);
    char *json = read_file(path, MAX_CONFIG);
    if (json == NULL) die("cannot read config.json in the bundle", path);
    if (!json_string_after(json, GROUP_ANNOTATION, name, sizeof name) &&
        !json_string_after(json, SANDBOX_ANNOTATION, name, sizeof name))
      snprintf(name, sizeof name, "%s", f->id);
    free(json);
  } else {
    group_of(bundle, name, sizeof name);
  }
  uint64_t h = fnv1a(fnv1a(fnv1a(0xcbf29ce484222325ULL, f->address), f->namespace), name);
  snprintf(skiff_dir, PATH_MAX, "%s/skiff", state);
  mkdir(skiff_dir, 0700);
  const char *prefix = pod ? "k-" : "";
  int n = snprintf(socket_path, PATH_MAX, "%s/%s%016llx.sock", skiff_dir, prefix, (unsigned long long)h);
  if (n >= (int)sizeof(((struct sockaddr_un *)0)->sun_path))
    die(pod ? "the pod socket path is too long for a unix socket; give containerd a shorter state dir"
            : "the group socket path is too long for a unix socket; give containerd a shorter state dir",
        socket_path);
  snprintf(lock_path, PATH_MAX, "%s/%s%016llx.lock", skiff_dir, prefix, (unsigned long long)h);
}

/* `start` with a keeper: containerd dials the pod's keeper, which relays to the serving process. */
static int start_keeper(const struct flags *f) {
  char bundle[PATH_MAX], skiff_dir[PATH_MAX], socket_path[PATH_MAX], lock_path[PATH_MAX], log_path[PATH_MAX];
  char why[PATH_MAX + 256], address[PATH_MAX + 8];
  pods_apart(); /* a bad SKIFF_SHIM_GROUP is refused here, in one line, not by the keeper in the log */
  keeper_paths(f, 1, bundle, skiff_dir, socket_path, lock_path);
  snprintf(log_path, sizeof log_path, "%s/log", bundle);
  char *argv[] = {"containerd-shim-skiff-v2", "-namespace", (char *)f->namespace, "-address", (char *)f->address,
                  "-id", (char *)f->id, "keep", NULL, NULL};
  if (f->debug) argv[7] = "-debug", argv[8] = "keep";
  if (keeper_ensure(socket_path, argv, log_path, why, sizeof why) != 0) die(why, NULL);
  snprintf(address, sizeof address, "unix://%s", socket_path);
  write_address(bundle, address);
  fputs(address, stdout);
  return 0;
}

/* `keep`: the pod keeper, run by `start` above; it derives the serving group as `start` does. */
static int do_keep(const struct flags *f) {
  struct keeper_config c;
  char bundle[PATH_MAX], skiff_dir[PATH_MAX], pkg[PATH_MAX], ttrpc[PATH_MAX];
  memset(&c, 0, sizeof c);
  keeper_paths(f, 0, bundle, skiff_dir, c.group_socket, c.group_lock);
  snprintf(c.state_dir, sizeof c.state_dir, "%s/%s", skiff_dir, f->namespace);
  package_dir(pkg, sizeof pkg);
  snprintf(c.script, sizeof c.script, "%s/bin/containerd-daemon.js", pkg);
  node_of(pkg, c.node, sizeof c.node);
  const char *given = getenv("TTRPC_ADDRESS");
  if (given == NULL || *given == '\0') snprintf(ttrpc, sizeof ttrpc, "%s.ttrpc", f->address);
  else snprintf(ttrpc, sizeof ttrpc, "%s", given);
  c.namespace = f->namespace;
  c.address = f->address;
  c.ttrpc_address = ttrpc;
  c.debug = f->debug;
  return keeper_main(&c);
}

static int do_start(const struct flags *f) {
  /* The runtime options (an Any) arrive on stdin; Create carries them again, where they are read. */
  char sink[4096];
  while (read(0, sink, sizeof sink) > 0) {
  }
  if (keeper_wanted()) return start_keeper(f);
  char bundle[PATH_MAX], state[PATH_MAX], skiff_dir[PATH_MAX], group[256], socket_path[PATH_MAX], lock_path[PATH_MAX];
  if (getcwd(bundle, sizeof bundle) == NULL) die("cannot read the bundle dir", strerror(errno));
  if (!safe_name(f->namespace) || !safe_name(f->id)) die("-namespace and -id must be plain names", f->id);
  state_dir_of(bundle, state, sizeof state);
  group_of(bundle, group, sizeof group);
  uint64_t h = fnv1a(fnv1a(fnv1a(0xcbf29ce484222325ULL, f->address), f->namespace), group);
  snprintf(skiff_dir, sizeof skiff_dir, "%s/skiff", state);
  mkdir(skiff_dir, 0700);
  int n = snprintf(socket_path, sizeof socket_path, "%s/%016llx.sock", skiff_dir, (unsigned long long)h);
  if (n >= (int)sizeof(((struct sockaddr_un *)0)->sun_path))
    die("the group socket path is too long for a unix socket; give containerd a shorter state dir", socket_path);
  snprintf(lock_path, sizeof lock_path, "%s/%016llx.lock", skiff_dir, (unsigned long long)h);
  char address[PATH_MAX + 8];
  snprintf(address, sizeof address, "unix://%s", socket_path);

  if (!connect_unix(socket_path)) {
    /* Two starts of one group at once: one binds and spawns, the other finds it serving. */
    int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock < 0 || flock(lock, LOCK_EX) != 0) die("cannot lock the group", strerror(errno));
    if (!connect_unix(socket_path)) {
      int listener = listen_unix(socket_path);
      spawn_server(f, listener, socket_path, skiff_dir, bundle);
      close(listener);
    }
    close(lock);
  }
  write_address(bundle, address);
  fputs(address, stdout);
  return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  return type == FTW_DP ? rmdir(path) : unlink(path);
}

static const char *find_in_path(const char *name, char *out, size_t size) {
  const char *path = getenv("PATH");
  if (path == NULL) path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  while (*path) {
    size_t len = strcspn(path, ":");
    snprintf(out, size, "%.*s/%s", (int)len, path, name);
    if (access(out, X_OK) == 0) return out;
    path += len + (path[len] == ':');
  }
  return NULL;
}

static void put_varint(unsigned char **p, uint64_t v) {
  while (v >= 0x80) {
    *(*p)++ = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  *(*p)++ = (unsigned char)v;
}

static int do_delete(const struct flags *f) {
  char bundle[PATH_MAX], state[PATH_MAX], task_dir[PATH_MAX], runc_root[PATH_MAX], path[PATH_MAX];
  if (f->bundle != NULL) snprintf(bundle, sizeof bundle, "%s", f->bundle);
  else if (getcwd(bundle, sizeof bundle) == NULL) die("cannot read the bundle dir", strerror(errno));
  if (!safe_name(f->namespace) || !safe_name(f->id)) die("-namespace and -id must be plain names", f->id);
  state_dir_of(bundle, state, sizeof state);
  snprintf(task_dir, sizeof task_dir, "%s/skiff/%s/tasks/%s", state, f->namespace, f->id);
  struct stat st;
  if (lstat(task_dir, &st) != 0) return 0; /* deleted by the serving process: nothing left */

  snprintf(runc_root, sizeof runc_root, "%s/skiff/%s/runc", state, f->namespace);
  char runc[PATH_MAX];
  if (find_in_path("runc", runc, sizeof runc) != NULL) {
    pid_t pid = fork();
    if (pid == 0) {
      int null = open("/dev/null", O_RDWR);
      dup2(null, 0);
      dup2(null, 1);
      execl(runc, "runc", "--root", runc_root, "delete", "--force", f->id, (char *)NULL);
      _exit(127);
    }
    int status;
    if (pid > 0) waitpid(pid, &status, 0);
  } else {
    fprintf(stderr, "runc is not in PATH: the container %s may still run\n", f->id);
  }
  snprintf(path, sizeof path, "%s/rootfs", bundle);
  for (int i = 0; i < 16 && umount2(path, MNT_DETACH) == 0; i++) {
  }
  snprintf(path, sizeof path, "%s/init.pid", task_dir);
  char *pid_text = read_file(path, 32);
  uint64_t pid = pid_text ? strtoull(pid_text, NULL, 10) : 0;
  free(pid_text);
  nftw(task_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);

  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  unsigned char ts[24], out[64], *p = ts;
  *p++ = 0x08;
  put_varint(&p, (uint64_t)now.tv_sec);
  *p++ = 0x10;
  put_varint(&p, (uint64_t)now.tv_nsec);
  size_t ts_len = (size_t)(p - ts);
  p = out;
  if (pid > 0) {
    *p++ = 0x08;
    put_varint(&p, pid);
  }
  *p++ = 0x10;
  put_varint(&p, 137); /* 128 + SIGKILL: what `runc delete --force` did to it */
  *p++ = 0x1a;
  put_varint(&p, ts_len);
  memcpy(p, ts, ts_len);
  p += ts_len;
  fwrite(out, 1, (size_t)(p - out), stdout);
  return 0;
}

int main(int argc, char **argv) {
  struct flags f;
  parse_flags(argc, argv, &f);
  if (f.action != NULL && strcmp(f.action, "start") == 0) return do_start(&f);
  if (f.action != NULL && strcmp(f.action, "delete") == 0) return do_delete(&f);
  if (f.action != NULL && strcmp(f.action, "keep") == 0) return do_keep(&f);
  fprintf(stderr,
          "usage: containerd-shim-skiff-v2 -namespace NS -address ADDR -id ID [-bundle DIR] [-debug] start|delete\n"
          "containerd runs this binary for --runtime io.containerd.skiff.v2 (see skiff's docs/containerd.md)\n");
  return 2;
}
