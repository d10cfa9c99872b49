/*
 * A descriptor polled on Node's event loop that calls a JS function when it turns readable
 * (poll-watch.c): the part the addon's watches share (watchExit's pidfd, watchOom's eventfd).
 * A watch embeds `skiff_poll_watch` as its first member; `ready` runs on each wake-up and
 * `release` closes the watch's own descriptors and frees it once libuv is done with it.
 */
#ifndef SKIFF_POLL_WATCH_H
#define SKIFF_POLL_WATCH_H
#include <node_api.h>
#include <uv.h>

typedef struct skiff_poll_watch skiff_poll_watch;

struct skiff_poll_watch {
  uv_poll_t poll;
  napi_env env;
  napi_ref callback;
  napi_async_context async;
  void (*ready)(skiff_poll_watch *w, int status);
  void (*release)(skiff_poll_watch *w);
};

/* Builds the callback's arguments inside its handle scope; returns how many. */
typedef size_t (*skiff_watch_args)(napi_env env, void *context, napi_value *argv);

/*
 * Polls `fd` for reading and holds `callback` until skiff_watch_end. Returns 0, or the errno
 * once the watch is released (w->release and w->ready must be set). `keep_alive` 0: the
 * watch alone does not keep the process alive.
 */
int skiff_watch_start(napi_env env, skiff_poll_watch *w, int fd, napi_value callback, const char *name, int keep_alive);

/* Calls the callback with at most 2 arguments from `args` (NULL: none); a throw is fatal, as from any callback. */
void skiff_watch_call(skiff_poll_watch *w, skiff_watch_args args, void *context);

/* Stops polling, lets go of the callback, and releases the watch once libuv has closed it. */
void skiff_watch_end(skiff_poll_watch *w);

#endif
