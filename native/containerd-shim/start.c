/*
 * `start`, once per container: containerd runs it and dials the address it prints. With a pod
 * keeper (the default) that is the pod's keeper socket, the keeper started when none answers;
 * without one (SKIFF_KEEPER=0), the group's serving process's socket: only when none answers does
 * it bind the socket and start one (node, dist/containerd.bundle.js) with the listener as fd 3, its
 * own session, stdin/stdout on /dev/null and stderr on the bundle's `log` FIFO, so containerd's
 * output pipes are never held. Prints only the address (or containerd 2.3's BootstrapResult).
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
#include <unistd.h>

#include "bootstrap.h"
#include "exec-report.h"
#include "fail.h"
#include "keeper-start.h"
#include "keeper-wanted.h"
#include "node-lookup.h"
#include "places.h"
#include "serving-argv.h"
#include "task-group.h"
#include "task-layout.h"
#include "unix-socket.h"
#include "verbs.h"

/* The most of stdin start keeps: containerd 2.3's BootstrapParams are a few hundred bytes (with the runtime options). */
#define MAX_BOOTSTRAP_INPUT (1 << 20)

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

/* `start` with a keeper: containerd dials the pod's keeper, which relays to the serving process. */
static int start_keeper(const struct flags *f, int v23) {
  char bundle[PATH_MAX], state[PATH_MAX], pod[4096], socket_path[PATH_MAX], lock_path[PATH_MAX];
  char log_path[PATH_MAX], pkg[PATH_MAX], node[PATH_MAX], why[PATH_MAX + 256], address[PATH_MAX + 8];
  bundle_and_state(f, bundle, state);
  /* Said here in the same one line as without the keeper, not by the keeper in containerd's log:
   * a bad SKIFF_SHIM_GROUP, no Node.js. */
  struct fault bad;
  if (pods_apart(&bad) < 0) die_of(&bad);
  if (package_dir(pkg, sizeof pkg, &bad) != 0 || find_node(pkg, node, sizeof node, &bad) != 0) die_of_in(bundle, &bad);
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

int do_start(const struct flags *f) {
  int v23 = bootstrap_caller(f);
  if (keeper_wanted()) return start_keeper(f, v23);
  char bundle[PATH_MAX], state[PATH_MAX], socket_path[PATH_MAX], lock_path[PATH_MAX];
  bundle_and_state(f, bundle, state);
  /* The pod keeper holds a sandbox's namespaces (docs/sandbox-api.md): without one there is nobody to. */
  if (layout_is_sandbox_bundle(bundle))
    die("a sandbox (sandboxer = \"shim\") is served behind pod keepers only: unset SKIFF_KEEPER in containerd's "
        "environment, or give this handler sandboxer = \"podsandbox\"",
        bundle);
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
      struct fault bad;
      if (package_dir(pkg, sizeof pkg, &bad) != 0 || find_node(pkg, node, sizeof node, &bad) != 0)
        die_of_in(bundle, &bad);
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
