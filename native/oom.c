/*
 * watchOom(memoryCgroupDir, callback): cgroup v1's OOM notification (Documentation/admin-guide/
 * cgroup-v1/memory.rst, "Memory thresholds"/"OOM Control"): an eventfd registered through
 * cgroup.event_control against memory.oom_control, polled on Node's event loop. callback()
 * runs once per OOM kill in that cgroup; the watch ends by itself when the cgroup is removed
 * (the kernel signals the eventfd then too, and memory.oom_control is gone).
 */
#define _GNU_SOURCE
#include <node_api.h>
#include <uv.h>
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

#ifdef __linux__
typedef struct {
  uv_poll_t poll;
  int efd, ofd;
  char control[4096];
  napi_env env;
  napi_ref callback;
  napi_async_context async;
} oom_watch;

static void free_oom(uv_handle_t *handle) {
  oom_watch *w = (oom_watch *)handle->data;
  close(w->efd);
  close(w->ofd);
  free(w);
}

static void end_oom(oom_watch *w) {
  uv_poll_stop(&w->poll);
  napi_delete_reference(w->env, w->callback);
  napi_async_destroy(w->env, w->async);
  uv_close((uv_handle_t *)&w->poll, free_oom);
}

static void on_oom(uv_poll_t *handle, int status, int events) {
  oom_watch *w = (oom_watch *)handle->data;
  uint64_t count;
  (void)events;
  if (status < 0 || read(w->efd, &count, sizeof count) != (ssize_t)sizeof count) {
    if (status < 0 || errno != EAGAIN) end_oom(w);
    return;
  }
  if (access(w->control, F_OK) != 0) { /* the cgroup went away: that was its removal */
    end_oom(w);
    return;
  }
  napi_handle_scope scope;
  napi_value callback, global, exc;
  napi_open_handle_scope(w->env, &scope);
  napi_get_reference_value(w->env, w->callback, &callback);
  napi_get_global(w->env, &global);
  if (napi_make_callback(w->env, w->async, global, callback, 0, NULL, NULL) == napi_pending_exception) {
    napi_get_and_clear_last_exception(w->env, &exc);
    napi_fatal_exception(w->env, exc);
  }
  napi_close_handle_scope(w->env, scope);
}
#endif

static napi_value WatchOom(napi_env env, napi_callback_info info) {
#ifdef __linux__
  size_t argc = 2, len;
  napi_value argv[2], name;
  char dir[3900], path[4096], line[64];
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
    snprintf(path, sizeof path, "%s/cgroup.event_control", dir);
    int cfd = open(path, O_WRONLY | O_CLOEXEC);
    int n = snprintf(line, sizeof line, "%d %d", w->efd, w->ofd);
    if (cfd < 0 || write(cfd, line, (size_t)n) != n) err = errno;
    if (cfd >= 0) close(cfd);
  }
  uv_loop_t *loop;
  napi_get_uv_event_loop(env, &loop);
  if (err == 0) err = -uv_poll_init(loop, &w->poll, w->efd);
  if (err != 0) {
    if (w->ofd >= 0) close(w->ofd);
    if (w->efd >= 0) close(w->efd);
    free(w);
    return skiff_throw_errno(env, "watchOom", err);
  }
  w->poll.data = w;
  w->env = env;
  napi_create_reference(env, argv[1], 1, &w->callback);
  napi_create_string_utf8(env, "skiff:oom-watch", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, NULL, name, &w->async);
  int rc = uv_poll_start(&w->poll, UV_READABLE, on_oom);
  if (rc != 0) {
    end_oom(w);
    return skiff_throw_errno(env, "uv_poll_start", -rc);
  }
  /* Not referenced: a watch never keeps the process alive by itself. */
  uv_unref((uv_handle_t *)&w->poll);
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
