/*
 * watchOom(memoryCgroupDir, callback): cgroup v1's OOM notification (Documentation/admin-guide/
 * cgroup-v1/memory.rst, "Memory thresholds"/"OOM Control"): an eventfd registered through
 * cgroup.event_control against memory.oom_control, polled on Node's event loop. callback()
 * runs once per OOM kill in that cgroup; the watch ends by itself when the cgroup is removed
 * (the kernel signals the eventfd then too, and memory.oom_control is gone).
 */
#define _GNU_SOURCE
#include <node_api.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/eventfd.h>
#endif

#include "errors.h"
#include "poll-watch.h"

#ifdef __linux__
typedef struct {
  skiff_poll_watch base; /* first: the poll's data is this watch */
  int efd, ofd;
  char control[4096];
} oom_watch;

static void release_oom(skiff_poll_watch *base) {
  oom_watch *w = (oom_watch *)base;
  close(w->efd);
  close(w->ofd);
  free(w);
}

static void on_oom(skiff_poll_watch *base, int status) {
  oom_watch *w = (oom_watch *)base;
  uint64_t count;
  if (status < 0 || read(w->efd, &count, sizeof count) != (ssize_t)sizeof count) {
    if (status < 0 || errno != EAGAIN) skiff_watch_end(base);
    return;
  }
  if (access(w->control, F_OK) != 0) { /* the cgroup went away: that was its removal */
    skiff_watch_end(base);
    return;
  }
  skiff_watch_call(base, NULL, NULL);
}
#endif

static napi_value WatchOom(napi_env env, napi_callback_info info) {
#ifdef __linux__
  size_t argc = 2, len;
  napi_value argv[2];
  char dir[3900];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 2 || napi_get_value_string_utf8(env, argv[0], dir, sizeof dir, &len) != napi_ok || len >= sizeof dir - 1)
    return skiff_throw_errno(env, "watchOom", EINVAL);
  oom_watch *w = calloc(1, sizeof *w);
  if (w == NULL) return skiff_throw_errno(env, "watchOom", ENOMEM);
  snprintf(w->control, sizeof w->control, "%s/memory.oom_control", dir);
  w->ofd = open(w->control, O_RDONLY | O_CLOEXEC);
  w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  int err = w->ofd < 0 || w->efd < 0 ? errno : 0;
  if (err == 0) {
    char path[4096], line[64];
    snprintf(path, sizeof path, "%s/cgroup.event_control", dir);
    int cfd = open(path, O_WRONLY | O_CLOEXEC);
    int n = snprintf(line, sizeof line, "%d %d", w->efd, w->ofd);
    if (cfd < 0 || write(cfd, line, (size_t)n) != n) err = errno;
    if (cfd >= 0) close(cfd);
  }
  if (err != 0) {
    if (w->ofd >= 0) close(w->ofd);
    if (w->efd >= 0) close(w->efd);
    free(w);
    return skiff_throw_errno(env, "watchOom", err);
  }
  w->base.ready = on_oom;
  w->base.release = release_oom;
  /* Not kept alive: a watch never keeps the process alive by itself. */
  err = skiff_watch_start(env, &w->base, w->efd, argv[1], "skiff:oom-watch", 0);
  if (err != 0) return skiff_throw_errno(env, "uv_poll_start", err);
  return NULL;
#else
  (void)info;
  return skiff_throw_errno(env, "watchOom", ENOSYS);
#endif
}

void skiff_register_oom(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "watchOom", NAPI_AUTO_LENGTH, WatchOom, NULL, &fn);
  napi_set_named_property(env, exports, "watchOom", fn);
}
