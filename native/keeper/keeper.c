/*
 * The pod keeper's life (docs/keeper-protocol.md, "The keeper's own rules"): started by
 * `start` with the pod listener as fd 3 and a readiness pipe as fd 4, it leaves `start`
 * (a second fork, its own session), becomes a subreaper, and runs one epoll loop over the
 * listener, its signals, every relay, the control connection (control.c) and the
 * processes it holds (held.h).
 */
#define _GNU_SOURCE
#include "keeper.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "held.h"
#include "relay.h"
#include "serving.h"
#include "state-cache.h"

#define LISTENER_FD 3
#define READY_FD 4
#define IDLE_MS_DEFAULT 60000
#define MAX_EVENTS 64
#define UPSTREAM_TRIES 3
#define UPSTREAM_TRIES_TEXT "3"

static struct keeper_state {
  const struct keeper_config *config;
  int epfd, sigfd;
  char pod_socket[sizeof(((struct sockaddr_un *)0)->sun_path)];
  char fields[sizeof(((struct sockaddr_un *)0)->sun_path) + 64];
  size_t fields_len;
  struct relay *relays, *dead;
  int relay_count;
  /* A containerd connection that made calls ended without a successful Shutdown: its task may run. */
  int tasks_unknown;
  long idle_ms;
  struct timespec idle_since;
  long state_due; /* ms until a State request's hedge time passes (relay_answer_overdue), -1: none */
} keeper;

/* epoll's tags for what is not a relay side. */
static struct side listener_tag = {.kind = SIDE_OTHER}, signal_tag = {.kind = SIDE_OTHER};

static long ms_since(const struct timespec *t) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
}

static void leave(int status) {
  /* The socket first: a `start` from now on starts a new keeper instead of finding this one. */
  unlink(keeper.pod_socket);
  exit(status);
}

/*
 * The doc's "holds a process", until the keeper holds the pod's processes: a containerd
 * connection is open, or one that made calls ended without a successful Shutdown (containerd
 * restarting, say: it comes back to its tasks, and a keeper gone by then would lose them).
 */
static int may_hold_tasks(void) {
  return keeper.relay_count > 0 || keeper.tasks_unknown || held_count() > 0;
}

static void watch(int op, int fd, uint32_t events, struct side *tag) {
  struct epoll_event ev = {.events = events, .data.ptr = tag};
  epoll_ctl(keeper.epfd, op, fd, &ev);
}

/* What each side of a relay waits for: reading stops while the other side's queue is full. */
static void update_interest(struct relay *r) {
  uint32_t down = (r->to_up.bytes < WAITING_MAX ? EPOLLIN : 0) | (r->to_down.head ? EPOLLOUT : 0);
  if (down != r->down_events) watch(EPOLL_CTL_MOD, r->down, down, &r->down_side);
  r->down_events = down;
  if (r->up < 0) return;
  uint32_t up = (r->to_down.bytes < WAITING_MAX ? EPOLLIN : 0) | (r->to_up.head && !r->up_refused ? EPOLLOUT : 0);
  if (up != r->up_events) watch(EPOLL_CTL_MOD, r->up, up, &r->up_side);
  r->up_events = up;
}

/* A relay to free once the events of this round are handled (some may still point at it). */
static void end_relay(struct relay *r) {
  if (r->prev) r->prev->next = r->next;
  else keeper.relays = r->next;
  if (r->next) r->next->prev = r->prev;
  r->next = keeper.dead;
  keeper.dead = r;
  if (r->down >= 0) close(r->down);
  if (r->up >= 0) close(r->up);
  r->down = r->up = -1;
  if (r->asked && !r->said_goodbye) keeper.tasks_unknown = 1;
  if (--keeper.relay_count == 0) clock_gettime(CLOCK_MONOTONIC, &keeper.idle_since);
  /* containerd hung up after its ShutdownSandbox: the pod is over (maybe_shut_down). */
  if (r->said_goodbye == SHUTDOWN_SANDBOX && keeper.relay_count == 0 && held_count() == 0 && !keeper.tasks_unknown)
    leave(0);
}

/* Connects the relay to the serving process (starting one if none answers), preamble first. */
static void connect_upstream(struct relay *r) {
  /* The control connection first: the serving process hears what the keeper holds before any call. */
  control_ensure();
  char why[PATH_MAX + 160];
  int fd = serving_connect(keeper.config, why, sizeof why);
  if (fd >= 0 && preamble_send(fd, ROLE_RELAY, keeper.fields, keeper.fields_len) != 0) {
    /* It accepted and closed at once: an upstream lost, which on_relay tries again a few times. */
    close(fd);
    r->losses++;
    return;
  }
  if (fd < 0) {
    keeper_say("%s", why);
    char message[sizeof why + 64]; /* the line below, why whole */
    snprintf(message, sizeof message, "skiff's serving process is not running and cannot be started: %s", why);
    relay_refuse_waiting(r, message);
    return;
  }
  r->up = fd;
  r->up_events = EPOLLIN;
  watch(EPOLL_CTL_ADD, fd, EPOLLIN, &r->up_side);
}

static void accept_all(void) {
  for (;;) {
    int fd = accept4(LISTENER_FD, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return; /* EAGAIN; or EMFILE and the like, tried again at the next event */
    struct relay *r = relay_new(fd);
    if (r == NULL) {
      close(fd);
      continue;
    }
    r->next = keeper.relays;
    if (keeper.relays) keeper.relays->prev = r;
    keeper.relays = r;
    keeper.relay_count++;
    r->down_events = EPOLLIN;
    watch(EPOLL_CTL_ADD, fd, EPOLLIN, &r->down_side);
    connect_upstream(r);
  }
}

/* The serving process said it hands over (`Q`, docs/upgrade.md): the close of each relay's
 * upstream that follows is not a loss that counts against it. */
static void handing_over(void) {
  for (struct relay *r = keeper.relays; r != NULL; r = r->next)
    if (r->up >= 0) r->up_handing_over = 1;
}

static void after_upstream_loss(struct relay *r) {
  /* A `Q` sent before this close may wait unread in the same round: it says whether the close counts. */
  control_read_waiting();
  if (keeper.config->debug) keeper_say("the serving process went away; %s", r->to_up.head ? "sending again" : "nothing in flight");
  relay_lose_upstream(r);
}

/* A successful Shutdown reached containerd: the runc shim's "no container left, exit". */
static void maybe_shut_down(struct relay *r) {
  if (!r->shutdown_ok || r->to_down.head != NULL) return;
  r->said_goodbye = r->shutdown_ok;
  r->shutdown_ok = 0;
  /* Its other connections, and the keys it holds, are tasks it still serves (docs/keeper-protocol.md, "As built").
   * containerd's ttrpc client can take a close just after the answer for the call's failure: for a
   * task's Shutdown it ignores that, for ShutdownSandbox it fails RemovePodSandbox, so a sandbox's
   * keeper leaves when containerd hangs up (end_relay). */
  if (r->said_goodbye == SHUTDOWN_TASK && keeper.relay_count == 1 && held_count() == 0) leave(0);
}

static void send_on(struct relay *r);

static void on_relay(struct side *s, uint32_t events) {
  struct relay *r = s->relay;
  if (r->down < 0 || (s->is_up && r->up < 0)) return; /* ended, or lost, earlier in this round */
  enum relay_result result = RELAY_OK;
  if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) result = relay_read(r, s->is_up);
  if (result == RELAY_OK && (events & EPOLLOUT)) result = relay_write(r, s->is_up);
  /* What was read goes on at once, without waiting for the next round. */
  if (result == RELAY_OK) result = relay_write(r, !s->is_up);
  if (result == RELAY_DOWN_GONE) {
    end_relay(r);
    return;
  }
  if (result == RELAY_UP_GONE) after_upstream_loss(r);
  send_on(r);
}

/* What a relay has queued goes on: to an upstream (connected first when it has none), and to containerd. */
static void send_on(struct relay *r) {
  /* A server that closes every relay without answering (one that does not take the preamble,
   * or dies at once) is tried a few times; then the calls are answered, never resent forever. */
  while (relay_needs_upstream(r)) {
    if (r->losses >= UPSTREAM_TRIES) {
      relay_refuse_waiting(r, "skiff's serving process closed the connection " UPSTREAM_TRIES_TEXT
                              " times without answering (see containerd's log)");
      break;
    }
    connect_upstream(r);
    if (r->up >= 0 && relay_write(r, 1) == RELAY_UP_GONE) relay_lose_upstream(r);
  }
  /* UNAVAILABLE answers go out now too. */
  if (relay_write(r, 0) == RELAY_DOWN_GONE) {
    end_relay(r);
    return;
  }
  maybe_shut_down(r);
  update_interest(r);
}

static void on_signal(void) {
  struct signalfd_siginfo info;
  while (read(keeper.sigfd, &info, sizeof info) == (ssize_t)sizeof info) {
    /* Only with nothing to keep (may_hold_tasks): a keeper with running containers ignores it. */
    if (info.ssi_signo == SIGTERM && !may_hold_tasks()) leave(0);
    if (info.ssi_signo == SIGTERM && may_hold_tasks()) keeper_say("SIGTERM ignored: containerd may still have tasks here");
  }
  /* What it launched, what those left behind (a subreaper inherits them): each exit goes to its key. */
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    /* A State kept for a key's process would say it runs: the serving process answers the next.
     * runc's own exits (create, exec) and strays change no State: a kept answer names only held
     * pids (held_runs), and dropping them there would lose every answer a Create or Start gave. */
    if (held_reaped(pid, status)) state_cache_forget_pid((uint64_t)pid);
  }
}

/* The State requests parked for an exit's ack go on once it is acked (state_ask_waits). */
static void unpark_acked(void) {
  for (struct relay *r = keeper.relays, *next; r != NULL; r = next) {
    next = r->next;
    if (r->parked.head == NULL || r->down < 0 || relay_unpark(r) == 0) continue;
    if (r->up >= 0 && relay_write(r, 1) == RELAY_UP_GONE) after_upstream_loss(r);
    send_on(r);
  }
}

/* Each relay's State requests past their hedge time get the keeper's answer where it has one. */
static void answer_overdue(void) {
  long now = relay_now_ms();
  keeper.state_due = -1;
  for (struct relay *r = keeper.relays, *next; r != NULL; r = next) {
    next = r->next;
    long due = relay_answer_overdue(r, now);
    if (due >= 0 && (keeper.state_due < 0 || due < keeper.state_due)) keeper.state_due = due;
    if (relay_write(r, 0) == RELAY_DOWN_GONE) {
      end_relay(r);
      continue;
    }
    update_interest(r);
  }
}

static int idle_timeout(void) {
  if (may_hold_tasks()) return -1;
  long left = keeper.idle_ms - ms_since(&keeper.idle_since);
  return left > 0 ? (int)left : 0;
}

/*
 * Whether the control connection must come back after a loss: the keeper holds a process, or a
 * relay is connected to the serving process (a Create there waits for this keeper's control
 * connection; a loss inside the retry pause, just before the relay reconnected, would leave a
 * keeper that holds nothing yet without one). A relay without an upstream starts nothing.
 */
static int control_wanted(void) {
  if (held_count() > 0) return 1;
  for (const struct relay *r = keeper.relays; r != NULL; r = r->next)
    if (r->up >= 0) return 1;
  return 0;
}

/* The soonest of the idle exit, a control reconnect and the held processes' timers. */
static int next_timeout(void) {
  int soonest = -1;
  const int each[] = {idle_timeout(), control_timeout(control_wanted()), held_timeout(), (int)keeper.state_due};
  for (size_t i = 0; i < sizeof each / sizeof each[0]; i++)
    if (each[i] >= 0 && (soonest < 0 || each[i] < soonest)) soonest = each[i];
  return soonest;
}

/* fd 4: one byte \0 for ready, else a line of why (docs/keeper-protocol.md, `start`). */
static void tell_start(const char *error) {
  if (error == NULL) {
    if (write(READY_FD, "", 1) < 0) keeper_say("start went away before the keeper was ready");
    close(READY_FD);
  } else if (write(READY_FD, error, strlen(error)) < 0) {
    keeper_say("%s", error);
  }
  /* After an error the pipe closes as the keeper exits: `start` returns once it is gone. */
}

/* Whatever containerd or `start` left open besides 0-4 is not the keeper's to hold for the pod's life. */
static void close_inherited(void) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, READY_FD + 1, ~0U, 0) == 0) return;
#endif
  DIR *dir = opendir("/proc/self/fd");
  if (dir == NULL) return;
  struct dirent *entry;
  /* One thread: readdir is safe here. */
  // cppcheck-suppress readdirCalled
  while ((entry = readdir(dir)) != NULL) {
    int fd = atoi(entry->d_name);
    if (fd > READY_FD && fd != dirfd(dir)) close(fd);
  }
  closedir(dir);
}

static int setup(const struct keeper_config *config) {
  keeper.config = config;
  const char *idle = getenv("SKIFF_KEEPER_IDLE_MS");
  keeper.idle_ms = idle != NULL && *idle != '\0' ? atol(idle) : IDLE_MS_DEFAULT;
  const char *hedge = getenv("SKIFF_KEEPER_STATE_MS");
  state_cache_configure(held_runs, held_exit_unacked, hedge != NULL && *hedge != '\0' ? atol(hedge) : STATE_HEDGE_MS_DEFAULT);
  keeper.state_due = -1;
  struct sockaddr_un sa;
  socklen_t len = sizeof sa;
  int listening = 0;
  socklen_t optlen = sizeof listening;
  if (getsockname(LISTENER_FD, (struct sockaddr *)&sa, &len) != 0 || sa.sun_family != AF_UNIX ||
      getsockopt(LISTENER_FD, SOL_SOCKET, SO_ACCEPTCONN, &listening, &optlen) != 0 || !listening) {
    fprintf(stderr, "containerd-shim-skiff-v2: keep is started by `start`, with the pod socket as fd 3\n");
    return 2;
  }
  snprintf(keeper.pod_socket, sizeof keeper.pod_socket, "%s", sa.sun_path);
  close_inherited();
  int n = snprintf(keeper.fields, sizeof keeper.fields, "keeper=%s%cpid=", keeper.pod_socket, '\0');
  fcntl(LISTENER_FD, F_SETFD, FD_CLOEXEC);
  fcntl(READY_FD, F_SETFD, FD_CLOEXEC);
  fcntl(LISTENER_FD, F_SETFL, fcntl(LISTENER_FD, F_GETFL) | O_NONBLOCK);

  /* Not `start`'s child: its parent becomes init (or the nearest subreaper), never containerd. */
  pid_t pid = fork();
  if (pid < 0) {
    tell_start("the keeper cannot fork");
    return 1;
  }
  if (pid > 0) _exit(0);
  setsid();
  n += snprintf(keeper.fields + n, sizeof keeper.fields - (size_t)n, "%d", (int)getpid());
  keeper.fields_len = (size_t)n + 1;
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  /* What the keeper launches (runc) runs with the environment containerd's runc shim gives
   * runc: GOMAXPROCS=4 (its process is started with it: runtime/v2/runc/v2/service.go,
   * newCommand) and no NOTIFY_SOCKET (go-runc's command() drops it; a containerd started by
   * systemd has it, and runc would relay the container's sd_notify). runc-cli.ts, runcEnvironment. */
  unsetenv("NOTIFY_SOCKET");
  setenv("GOMAXPROCS", "4", 1);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  sigset_t handled;
  sigemptyset(&handled);
  sigaddset(&handled, SIGCHLD);
  sigaddset(&handled, SIGTERM);
  sigprocmask(SIG_BLOCK, &handled, NULL);
  keeper.sigfd = signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC);
  keeper.epfd = epoll_create1(EPOLL_CLOEXEC);
  /* The first bundle goes with its container; nothing the keeper does needs a working directory. */
  if (chdir("/") != 0 || keeper.sigfd < 0 || keeper.epfd < 0) {
    tell_start("the keeper cannot set up its event loop");
    return 1;
  }
  watch(EPOLL_CTL_ADD, LISTENER_FD, EPOLLIN, &listener_tag);
  watch(EPOLL_CTL_ADD, keeper.sigfd, EPOLLIN, &signal_tag);

  /* Ready means a serving process answers: the container's Create will find one. */
  char why[PATH_MAX + 160];
  int probe = serving_connect(config, why, sizeof why);
  if (probe < 0) {
    tell_start(why);
    unlink(keeper.pod_socket);
    return 1;
  }
  close(probe);
  tell_start(NULL);
  clock_gettime(CLOCK_MONOTONIC, &keeper.idle_since);
  static const struct control_handlers handlers = {
      .launch = held_launch,
      .close_stdin = held_close_stdin,
      .resize = held_resize,
      .start = held_start,
      .ack = held_ack,
      .release = held_release,
      .handing_over = handing_over,
      .greet = held_greet,
  };
  control_init(keeper.epfd, config, keeper.fields, keeper.fields_len, &handlers);
  held_init(keeper.epfd);
  return 0;
}

int keeper_main(const struct keeper_config *config) {
  int status = setup(config);
  if (status != 0) return status;
  struct epoll_event events[MAX_EVENTS];
  for (;;) {
    int busy = may_hold_tasks();
    int n = epoll_wait(keeper.epfd, events, MAX_EVENTS, next_timeout());
    if (n < 0 && errno != EINTR) {
      keeper_say("epoll_wait: %s", strerror(errno));
      leave(1);
    }
    if (n == 0 && idle_timeout() == 0) {
      if (config->debug) keeper_say("no connection for %ld ms: leaving", keeper.idle_ms);
      leave(0);
    }
    for (int i = 0; i < n; i++) {
      struct side *s = events[i].data.ptr;
      if (s == &listener_tag) accept_all();
      else if (s == &signal_tag) on_signal();
      else if (s->kind == SIDE_CONTROL) control_on_event(events[i].events);
      else if (s->kind == SIDE_MASTER || s->kind == SIDE_INPUT || s->kind == SIDE_OUTPUT || s->kind == SIDE_FIFO)
        held_on_fd(s, events[i].events);
      else on_relay(s, events[i].events);
    }
    held_tick();
    unpark_acked();
    answer_overdue();
    control_tick(control_wanted());
    /* Nothing held and no containerd connection: nothing to tell the serving process. */
    if (keeper.relay_count == 0 && held_count() == 0) control_close();
    if (busy && !may_hold_tasks()) clock_gettime(CLOCK_MONOTONIC, &keeper.idle_since);
    held_collect();
    while (keeper.dead != NULL) {
      struct relay *r = keeper.dead;
      keeper.dead = r->next;
      relay_free(r);
    }
  }
}
