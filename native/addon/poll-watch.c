/* A descriptor polled on Node's event loop with a JS callback (poll-watch.h). */
#include <node_api.h>
#include <uv.h>
#include "poll-watch.h"

static void on_ready(uv_poll_t *handle, int status, int events) {
  (void)events;
  skiff_poll_watch *w = (skiff_poll_watch *)handle->data;
  w->ready(w, status);
}

static void on_closed(uv_handle_t *handle) {
  skiff_poll_watch *w = (skiff_poll_watch *)handle->data;
  w->release(w);
}

int skiff_watch_start(napi_env env, skiff_poll_watch *w, int fd, napi_value callback, const char *name, int keep_alive) {
  uv_loop_t *loop;
  napi_value resource;
  napi_get_uv_event_loop(env, &loop);
  int rc = uv_poll_init(loop, &w->poll, fd);
  if (rc != 0) {
    w->release(w);
    return -rc;
  }
  w->poll.data = w;
  w->env = env;
  napi_create_reference(env, callback, 1, &w->callback);
  napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &resource);
  napi_async_init(env, NULL, resource, &w->async);
  rc = uv_poll_start(&w->poll, UV_READABLE, on_ready);
  if (rc != 0) {
    /* The handle is initialised: only a close gives it back, and then the watch is released. */
    skiff_watch_end(w);
    return -rc;
  }
  if (!keep_alive) uv_unref((uv_handle_t *)&w->poll);
  return 0;
}

void skiff_watch_call(skiff_poll_watch *w, skiff_watch_args args, void *context) {
  napi_env env = w->env;
  napi_handle_scope scope;
  napi_value callback, global, argv[2], exc;
  napi_open_handle_scope(env, &scope);
  size_t argc = args == NULL ? 0 : args(env, context, argv);
  napi_get_reference_value(env, w->callback, &callback);
  napi_get_global(env, &global);
  if (napi_make_callback(env, w->async, global, callback, argc, argv, NULL) == napi_pending_exception) {
    napi_get_and_clear_last_exception(env, &exc);
    napi_fatal_exception(env, exc);
  }
  napi_close_handle_scope(env, scope);
}

void skiff_watch_end(skiff_poll_watch *w) {
  uv_poll_stop(&w->poll);
  napi_delete_reference(w->env, w->callback);
  napi_async_destroy(w->env, w->async);
  uv_close((uv_handle_t *)&w->poll, on_closed);
}
