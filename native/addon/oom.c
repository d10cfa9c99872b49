/*
 * watchOom(memoryCgroupDir, callback): cgroup v1's OOM notification (Documentation/admin-guide/
 * cgroup-v1/memory.rst, "Memory thresholds"/"OOM Control"): an eventfd registered through
 * cgroup.event_control against memory.oom_control, polled on Node's event loop. callback()
 * runs once per OOM notification in that cgroup; the watch ends by itself when the cgroup is
 * removed: the kernel signals the eventfd once more then, and never again.
 *
 * That last signal comes from a work item queued after the rmdir, some milliseconds later, by
 * which time a new cgroup of the same name may exist (a container id used again: runc names
 * the cgroup after it when the bundle has no cgroupsPath). So the cgroup is known by its
 * directory's inode (kernfs never gives one to two directories), not by its path: a path that
 * is gone, or names another directory, means this cgroup was removed, and that wake-up is
 * never reported as an OOM. Only the eventfd stays open, as in containerd's cgroups
 * (cgroup1/memory.go closes the event file once registered).
 */
#define _GNU_SOURCE
#include <node_api.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/eventfd.h>
#endif

#include "errors.h"
#include "export.h"
#include "poll-watch.h"

#ifdef __linux__
typedef struct {
  skiff_poll_watch base; /* first: the poll's data is this watch */
  int efd;
  dev_t dev;
  ino_t ino;
  char dir[3900];
} oom_watch;

static void release_oom(skiff_poll_watch *base) {
  oom_watch *w = (oom_watch *)base;
  close(w->efd);
  free(w);
}

/* Whether the watched cgroup's directory is still there: the same inode at the same path. */
static int cgroup_alive(const oom_watch *w) {
  struct stat st;
  return stat(w->dir, &st) == 0 && st.st_dev == w->dev && st.st_ino == w->ino;
}

static void on_oom(skiff_poll_watch *base, int status) {
  oom_watch *w = (oom_watch *)base;
  uint64_t count;
  if (status < 0 || read(w->efd, &count, sizeof count) != (ssize_t)sizeof count) {
    if (status < 0 || errno != EAGAIN) skiff_watch_end(base);
    return;
  }
  if (cgroup_alive(w)) {
    skiff_watch_call(base, NULL, NULL);
    return;
  }
  /* The removal counts one; more means OOM notifications came in the same wake-up. */
  if (count > 1) skiff_watch_call(base, NULL, NULL);
  skiff_watch_end(base);
}
#endif

static napi_value WatchOom(napi_env env, napi_callback_info info) {
#ifdef __linux__
  size_t argc = 2, len;
  napi_value argv[2];
  char path[4096];
  struct stat st;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  oom_watch *w = calloc(1, sizeof *w);
  if (w == NULL) return skiff_throw_errno(env, "watchOom", ENOMEM);
  if (argc < 2 || napi_get_value_string_utf8(env, argv[0], w->dir, sizeof w->dir, &len) != napi_ok ||
      len >= sizeof w->dir - 1) {
    free(w);
    return skiff_throw_errno(env, "watchOom", EINVAL);
  }
  snprintf(path, sizeof path, "%s/memory.oom_control", w->dir);
  int ofd = open(path, O_RDONLY | O_CLOEXEC);
  w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  /* The directory's identity, taken before registering: a removal after this is seen at the wake-up. */
  int err = ofd < 0 || w->efd < 0 || stat(w->dir, &st) != 0 ? errno : 0;
  if (err == 0) {
    w->dev = st.st_dev;
    w->ino = st.st_ino;
    snprintf(path, sizeof path, "%s/cgroup.event_control", w->dir);
    int cfd = open(path, O_WRONLY | O_CLOEXEC);
    char line[64];
    int n = snprintf(line, sizeof line, "%d %d", w->efd, ofd);
    if (cfd < 0 || write(cfd, line, (size_t)n) != n) err = errno;
    if (cfd >= 0) close(cfd);
  }
  if (ofd >= 0) close(ofd); /* the registered event does not need it open */
  if (err != 0) {
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
  skiff_export(env, exports, "watchOom", WatchOom, NULL);
}
