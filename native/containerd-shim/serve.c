/*
 * serve_main (serve.h): the supervisor a node's systemd unit runs (docs/node-daemon.md).
 *
 * It binds the group socket once and holds it for its whole life, so a keeper or `start` always
 * finds it answering: a call made while no Node runs waits in the backlog, never meets
 * ECONNREFUSED, and so nothing else starts a serving process beside this unit's. It keeps one
 * serving process (Node, on the listener as fd 3) on it:
 *   - a serving process that dies is started again at once (the crash of docs/failure-domains.md:
 *     the new one takes the tasks over from their records);
 *   - a hand-over (`skiff containerd restart`, SIGUSR2 to Node) starts the successor as the old
 *     one's child: this process is a child subreaper, so the kernel gives it the successor before
 *     it reports the old one's exit, and it follows the successor instead of starting one;
 *   - SIGTERM (`systemctl stop`) asks Node to release its tasks (SIGHUP: the hand-over's steps
 *     with no successor) and leaves once it is gone: the containers run on behind their pod
 *     keepers, which start a serving process of their own at their next call, as with no unit;
 *   - a standby (bin/containerd-standby.js, `--gate 4`) waits beside it, skiff loaded, and
 *     takes over at the serving process's death without Node's start (seconds on a slow node):
 *     the gate's byte promotes it, and a new standby follows later (SKIFF_STANDBY=0: none).
 * Its state is told to systemd (sd_notify(3)'s READY=1 and STATUS=), so `systemctl status`
 * names the serving process.
 */
#define _GNU_SOURCE
#include "serve.h"
#include "exec-report.h"
#include "unix-socket.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Room for every keeper of the namespace reconnecting at once while Node starts (as serving.c). */
#define BACKLOG 1024
/* How long a serving process found on the socket gets to release its tasks to this one. */
#define TAKE_OVER_MS 30000
/* How long Node gets to release its tasks at SIGTERM (the hand-over's 10 s for calls, 5 s for events). */
#define RELEASE_MS 25000
/* A serving process that dies sooner than this after its start counts towards giving up. */
#define QUICK_DEATH_MS 2000
#define QUICK_DEATHS_MAX 5
#define POLL_MS 20
/* A standby starts this long after the serving process it stands by, so the two never start
 * at once (at boot, after a crash), at the lowest priority until promoted. */
#define STANDBY_DELAY_MS_DEFAULT 10000
#define STANDBY_GATE_FD 4
#define STANDBY_NICE 19

static void say(const char *namespace, const char *line) {
  fprintf(stderr, "skiff serve[%s]: %s\n", namespace, line);
}

static long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

static void sleep_ms(long ms) {
  const struct timespec step = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&step, NULL);
}

/* sd_notify(3) without libsystemd: one datagram to $NOTIFY_SOCKET ('@' is the abstract namespace). */
static void notify(const char *text) {
  const char *path = getenv("NOTIFY_SOCKET");
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  size_t len = path == NULL ? 0 : strlen(path);
  if (len == 0 || len >= sizeof addr.sun_path || (path[0] != '/' && path[0] != '@')) return;
  memcpy(addr.sun_path, path, len);
  if (path[0] == '@') addr.sun_path[0] = '\0';
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  socklen_t size = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
  (void)sendto(fd, text, strlen(text), MSG_NOSIGNAL, (struct sockaddr *)&addr, size);
  close(fd);
}

/* The standby: its pid (0: none), the write end of its gate, when the next one is due (0: never). */
struct standby {
  pid_t pid;
  int gate;
  long due_ms, started_ms, delay_ms;
  int quick_deaths;
  char script[4096];
};

static void notify_status(const struct serve_config *c, const char *what, pid_t pid, const struct standby *s) {
  char text[512], beside[64] = "";
  if (s->pid != 0) snprintf(beside, sizeof beside, ", standby %d", (int)s->pid);
  snprintf(text, sizeof text, "STATUS=%s namespace %s (serving process %d%s)", what, c->command.namespace, (int)pid,
           beside);
  notify(text);
}

/* Whether process `pid` is a serving process of this group: node .../bin/containerd-daemon.js ... --socket <ours>. */
static int serves_our_socket(pid_t pid, const char *socket_path) {
  char path[64], argv[16384];
  snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, argv, sizeof argv - 1);
  close(fd);
  if (n <= 0) return 0;
  argv[n] = '\0';
  int script = 0, socket = 0;
  const char *prev = NULL;
  for (const char *arg = argv; arg < argv + n; arg += strlen(arg) + 1) {
    size_t len = strlen(arg);
    const char *tail = "/bin/containerd-daemon.js";
    if (len >= strlen(tail) && strcmp(arg + len - strlen(tail), tail) == 0) script = 1;
    if (prev != NULL && strcmp(prev, "--socket") == 0 && strcmp(arg, socket_path) == 0) socket = 1;
    prev = arg;
  }
  return script && socket;
}

/* The pid a pid file names, 0 when there is none. */
static pid_t pid_in(const char *file) {
  char text[32] = {0};
  int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return 0;
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  long pid = n > 0 ? strtol(text, NULL, 10) : 0;
  return pid > 0 && pid < 1L << 22 ? (pid_t)pid : 0;
}

/*
 * A serving process this unit did not start answers on the socket (a keeper's or `start`'s,
 * from before the unit ran or while it was stopped): it is asked to release its tasks (SIGHUP)
 * and this waits until its socket refuses. The group lock is held meanwhile, so a keeper that
 * then finds the socket refusing waits for the lock and finds this unit's listener. 0, or -1.
 */
static int take_over(const struct serve_config *c) {
  long deadline = now_ms() + TAKE_OVER_MS;
  pid_t signalled = 0;
  while (unix_answers(c->command.socket)) {
    pid_t pid = pid_in(c->pid_file);
    if (pid != 0 && pid != signalled && serves_our_socket(pid, c->command.socket) && kill(pid, SIGHUP) == 0) {
      char line[160];
      snprintf(line, sizeof line, "the serving process %d was not started by this unit: it hands its tasks over",
               (int)pid);
      say(c->command.namespace, line);
      signalled = pid;
    }
    if (now_ms() > deadline) {
      say(c->command.namespace,
          "a serving process answers on the group socket and did not leave within 30 s: nothing was started; "
          "see containerd's log, or stop that process");
      return -1;
    }
    sleep_ms(POLL_MS);
  }
  return 0;
}

/* The group socket, bound under the group lock once nothing else serves on it; -1 after one line. */
static int bind_group_socket(const struct serve_config *c) {
  int lock = open(c->group_lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (lock < 0 || flock(lock, LOCK_EX) != 0) {
    char line[512];
    snprintf(line, sizeof line, "cannot lock %s: %s", c->group_lock, strerror(errno));
    say(c->command.namespace, line);
    if (lock >= 0) close(lock);
    return -1;
  }
  int listener = take_over(c) == 0 ? unix_listen(c->command.socket, SOCK_CLOEXEC, BACKLOG) : -2;
  if (listener == -1) {
    char line[512];
    snprintf(line, sizeof line, "cannot listen on the group socket %s: %s", c->command.socket, strerror(errno));
    say(c->command.namespace, line);
  }
  close(lock);
  return listener < 0 ? -1 : listener;
}

/* fd as `target` across exec: dup2 onto a different descriptor clears close-on-exec on the copy,
 * but dup2 of a descriptor onto itself does nothing and leaves the flag set. */
static void keep_as(int fd, int target) {
  if (fd == target) fcntl(target, F_SETFD, 0);
  else dup2(fd, target);
}

/*
 * Starts Node on the listener (fd 3), stderr shared (the journal), `cmd` run as it says; with a
 * `gate`, that read end as fd 4 (a standby's), at the lowest priority. Its pid, or 0 after one line.
 */
static pid_t start_node(const struct serve_config *c, const struct serving_command *cmd, int listener, int gate,
                        const sigset_t *old_mask) {
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return say(c->command.namespace, "cannot make a pipe"), 0;
  pid_t pid = fork();
  if (pid == 0) {
    close(report[0]);
    sigprocmask(SIG_SETMASK, old_mask, NULL);
    signal(SIGPIPE, SIG_DFL);
    unsetenv("NOTIFY_SOCKET"); /* systemd hears from this supervisor only */
    /* The unit keeps its serving process (docs/node-daemon.md): one that lingered out after its
     * last task would remove the group socket this process holds, and leave (status 0) to be
     * started again on a listener nobody can reach by its path, or, lingering 0 ms, five times
     * in a row until the unit gives up. So a SKIFF_SHIM_LINGER_MS of the unit's environment
     * (copied there from containerd's) has no effect, as documented. */
    unsetenv("SKIFF_SHIM_LINGER_MS");
    setsid();
    if (chdir("/") != 0) _exit(127);
    /* The gate out of the way first: it may hold 3, which the listener is about to take. */
    if (gate >= 0) gate = fcntl(gate, F_DUPFD_CLOEXEC, STANDBY_GATE_FD + 1);
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    keep_as(null, 0);
    keep_as(null, 1);
    keep_as(listener, 3);
    if (gate >= 0) {
      keep_as(gate, STANDBY_GATE_FD);
      (void)setpriority(PRIO_PROCESS, 0, STANDBY_NICE);
    }
    serving_exec(cmd, report[1]);
  }
  close(report[1]);
  if (pid < 0) {
    close(report[0]);
    say(c->command.namespace, "cannot fork the serving process");
    return 0;
  }
  int err = exec_report_wait(report[0]);
  if (err != 0) {
    char line[1024];
    serving_exec_error(line, sizeof line, c->command.node, err);
    say(c->command.namespace, line);
    waitpid(pid, NULL, 0);
    return 0;
  }
  return pid;
}

static pid_t start_server(const struct serve_config *c, int listener, const sigset_t *old_mask) {
  return start_node(c, &c->command, listener, -1, old_mask);
}

/* A new standby on `s` (its gate's write end kept here); 0 and one line when none could start. */
static void start_standby(const struct serve_config *c, struct standby *s, int listener, const sigset_t *old_mask) {
  int gate[2];
  s->due_ms = 0;
  if (pipe2(gate, O_CLOEXEC) != 0) return say(c->command.namespace, "cannot make a standby's gate: no standby");
  struct serving_command cmd = c->command;
  cmd.script = s->script;
  cmd.gate = "4";
  s->pid = start_node(c, &cmd, listener, gate[0], old_mask);
  close(gate[0]);
  if (s->pid == 0) {
    close(gate[1]);
    return;
  }
  s->gate = gate[1];
  s->started_ms = now_ms();
}

/* The standby let go (hand-over: it runs the old package; stop): its gate closed, which it leaves at. */
static void end_standby(struct standby *s, long next_due_ms) {
  if (s->pid != 0) {
    close(s->gate);
    kill(s->pid, SIGTERM);
  }
  s->pid = 0;
  s->due_ms = next_due_ms;
}

/* Every thread of `pid` at nice 0: a nice value is a thread's, and Node's threads took the standby's at their start. */
static void renice_threads(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *tasks = opendir(path);
  if (tasks == NULL) return;
  // cppcheck-suppress readdirCalled
  for (struct dirent *e; (e = readdir(tasks)) != NULL;) {
    char *end;
    long tid = strtol(e->d_name, &end, 10);
    if (*end == '\0' && tid > 0) (void)setpriority(PRIO_PROCESS, (id_t)tid, 0);
  }
  closedir(tasks);
}

/* The standby made the serving process: its priority back, then the gate's byte. Its pid, or 0 when it is gone. */
static pid_t promote(struct standby *s, long next_due_ms) {
  pid_t pid = s->pid;
  renice_threads(pid);
  ssize_t n = write(s->gate, "g", 1);
  close(s->gate);
  s->pid = 0;
  s->due_ms = next_due_ms;
  return n == 1 ? pid : 0;
}

/* Whether `script` (…/bin/containerd-daemon.js) gives the standby's beside it in s->script. */
static int standby_script(const char *script, struct standby *s) {
  const char *tail = "/containerd-daemon.js";
  size_t len = strlen(script), tail_len = strlen(tail);
  if (len < tail_len || strcmp(script + len - tail_len, tail) != 0 || len + 2 > sizeof s->script) return 0;
  snprintf(s->script, sizeof s->script, "%.*s/containerd-standby.js", (int)(len - tail_len), script);
  return 1;
}

/* A child of this process serving our socket: the successor of a hand-over, given to this subreaper. */
static pid_t successor(const struct serve_config *c) {
  DIR *proc = opendir("/proc");
  if (proc == NULL) return 0;
  pid_t found = 0, self = getpid();
  // readdir_r is deprecated (glibc); this program has one thread.
  // cppcheck-suppress readdirCalled
  for (struct dirent *e; found == 0 && (e = readdir(proc)) != NULL;) {
    char *end, path[300], stat[512];
    long pid = strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n = read(fd, stat, sizeof stat - 1);
    close(fd);
    stat[n > 0 ? n : 0] = '\0';
    /* "pid (comm) state ppid ...": comm may hold anything, so read after its last ')'. */
    const char *after = strrchr(stat, ')');
    char state;
    int ppid;
    if (after == NULL || sscanf(after + 1, " %c %d", &state, &ppid) != 2 || ppid != self || state == 'Z') continue;
    if (serves_our_socket((pid_t)pid, c->command.socket)) found = (pid_t)pid;
  }
  closedir(proc);
  return found;
}

static void describe_exit(const struct serve_config *c, pid_t pid, int status, const char *then) {
  char line[256];
  if (WIFSIGNALED(status))
    snprintf(line, sizeof line, "the serving process %d was killed by signal %d; %s", (int)pid, WTERMSIG(status), then);
  else
    snprintf(line, sizeof line, "the serving process %d exited with status %d; %s", (int)pid, WEXITSTATUS(status), then);
  say(c->command.namespace, line);
}

/*
 * Descriptors 0, 1 and 2 open (on /dev/null when they were not): systemd gives them, but run
 * with one closed, the lock, the listener and the report pipe took their numbers, so the
 * listener was 3 itself (and close-on-exec: Node found no listener there, died and was started
 * again until the unit gave up), and this process's lines went into whatever held 2.
 */
static int std_fds_open(void) {
  for (int fd = 0; fd <= 2; fd++) /* the ones below fd are open: /dev/null takes the number fd */
    if (fcntl(fd, F_GETFD) == -1 && open("/dev/null", O_RDWR) != fd) return -1;
  return 0;
}

/* A standby's death: counted as the serving process's are, the next one due after the delay, none after five quick ones. */
static void standby_died(const struct serve_config *c, struct standby *s, int status) {
  close(s->gate);
  s->pid = 0;
  s->quick_deaths = now_ms() - s->started_ms < QUICK_DEATH_MS ? s->quick_deaths + 1 : 0;
  char line[256];
  snprintf(line, sizeof line, "the standby %s %d%s", WIFSIGNALED(status) ? "was killed by signal" : "exited with status",
           WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
           s->quick_deaths >= QUICK_DEATHS_MAX ? ", within 2 s of its start 5 times in a row: no standby from now on"
                                               : "; another follows");
  say(c->command.namespace, line);
  s->due_ms = s->quick_deaths >= QUICK_DEATHS_MAX ? 0 : now_ms() + s->delay_ms;
}

int serve_main(const struct serve_config *c) {
  const char *ns = c->command.namespace;
  if (std_fds_open() != 0) return 1;
  sigset_t handled, old_mask;
  sigemptyset(&handled);
  sigaddset(&handled, SIGCHLD);
  sigaddset(&handled, SIGTERM);
  sigaddset(&handled, SIGINT);
  sigprocmask(SIG_BLOCK, &handled, &old_mask);
  /* A standby that died leaves its gate without a reader: the write fails with EPIPE instead. */
  signal(SIGPIPE, SIG_IGN);
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
    say(ns, "cannot become a child subreaper: a hand-over's successor would be lost");
    return 1;
  }
  struct standby standby = {.delay_ms = STANDBY_DELAY_MS_DEFAULT};
  const char *wanted = getenv("SKIFF_STANDBY");
  int standbys = (wanted == NULL || strcmp(wanted, "0") != 0) && standby_script(c->command.script, &standby);
  /* SKIFF_STANDBY_DELAY_MS: for tests, which cannot wait the delay at every start. */
  const char *delay = getenv("SKIFF_STANDBY_DELAY_MS");
  if (delay != NULL && *delay != '\0') {
    char *end;
    long ms = strtol(delay, &end, 10);
    if (*end == '\0' && ms >= 0 && ms <= 3600000) standby.delay_ms = ms;
  }
  int listener = bind_group_socket(c);
  if (listener < 0) return 1;
  pid_t server = start_server(c, listener, &old_mask);
  if (server == 0) return 1;
  long started = now_ms();
  int quick_deaths = 0, stopping = 0;
  long stop_deadline = 0;
  if (standbys) standby.due_ms = started + standby.delay_ms;
  /* READY=1 once Node serves (it writes its pid file then), not once it is spawned: a unit
   * ordered before kubelet then lets the node's first pod meet a loaded serving process, and
   * `systemctl start` returns when that is so. Calls made before wait in the backlog, as ever. */
  int ready = 0;
  notify_status(c, "starting", server, &standby);

  for (;;) {
    if (!ready && !stopping && server != 0 && pid_in(c->pid_file) == server) {
      ready = 1;
      notify("READY=1");
      notify_status(c, "serving", server, &standby);
    }
    siginfo_t info;
    struct timespec tick = {0, POLL_MS * 1000000L};
    long until_standby = standby.due_ms == 0 || stopping ? -1 : standby.due_ms - now_ms();
    if (!ready && (until_standby < 0 || until_standby > POLL_MS)) until_standby = POLL_MS;
    if (!stopping && until_standby >= 0) tick = (struct timespec){until_standby / 1000, (until_standby % 1000) * 1000000L};
    int sig = sigtimedwait(&handled, &info, stopping || until_standby >= 0 ? &tick : NULL);
    if (sig == SIGTERM || sig == SIGINT) {
      if (!stopping) {
        say(ns, "stopping: the serving process releases its tasks to the pod keepers");
        notify("STOPPING=1");
        stopping = 1;
        stop_deadline = now_ms() + RELEASE_MS;
        end_standby(&standby, 0);
        if (server != 0) kill(server, SIGHUP);
      }
    }
    int status;
    for (pid_t pid; (pid = waitpid(-1, &status, WNOHANG)) > 0;) {
      if (pid == standby.pid) {
        standby_died(c, &standby, status);
        if (!stopping && server != 0) notify_status(c, ready ? "serving" : "starting", server, &standby);
        continue;
      }
      if (pid != server) continue; /* an orphan given to this subreaper (a standby let go): reaped, nothing more */
      pid_t next = successor(c);
      if (next != 0) {
        char line[160];
        snprintf(line, sizeof line, "the serving process %d handed over to %d", (int)pid, (int)next);
        say(ns, line);
        server = next;
        /* The standby runs the package the old one ran: a new one, of the package now on disk, follows. */
        if (standby.pid != 0) end_standby(&standby, now_ms() + standby.delay_ms);
        if (stopping) kill(server, SIGHUP);
        else notify_status(c, ready ? "serving" : "starting", server, &standby);
        continue;
      }
      server = 0;
      if (stopping) break;
      quick_deaths = now_ms() - started < QUICK_DEATH_MS ? quick_deaths + 1 : 0;
      if (quick_deaths >= QUICK_DEATHS_MAX) {
        describe_exit(c, pid, status, "it died within 2 s of its start 5 times in a row: giving up");
        return 1;
      }
      long next_standby = standbys ? now_ms() + standby.delay_ms : 0;
      if (standby.pid != 0) {
        char then[96];
        snprintf(then, sizeof then, "its standby %d takes its tasks over", (int)standby.pid);
        describe_exit(c, pid, status, then);
        server = promote(&standby, next_standby);
      }
      if (server == 0) {
        describe_exit(c, pid, status, "starting a new one, which takes its tasks over");
        server = start_server(c, listener, &old_mask);
        if (server == 0) return 1;
        if (standby.due_ms != 0) standby.due_ms = now_ms() + standby.delay_ms;
      }
      started = now_ms();
      notify_status(c, ready ? "serving" : "starting", server, &standby);
    }
    if (stopping && server == 0) break;
    if (stopping && now_ms() > stop_deadline) {
      say(ns, "the serving process did not release its tasks within 25 s: killed (the keepers take them over)");
      kill(server, SIGKILL);
      waitpid(server, NULL, 0);
      break;
    }
    if (!stopping && standby.pid == 0 && standby.due_ms != 0 && now_ms() >= standby.due_ms) {
      start_standby(c, &standby, listener, &old_mask);
      if (standby.pid == 0 && standby.quick_deaths < QUICK_DEATHS_MAX) standby.due_ms = now_ms() + standby.delay_ms;
      notify_status(c, ready ? "serving" : "starting", server, &standby);
    }
  }
  close(listener);
  return 0;
}
