/* How each source file of the addon puts its functions on the module's exports. */
#ifndef SKIFF_EXPORT_H
#define SKIFF_EXPORT_H
#include <node_api.h>

/* exports[name] = a function calling `fn`, which gets `data` from napi_get_cb_info. */
static inline void skiff_export(napi_env env, napi_value exports, const char *name, napi_callback fn, void *data) {
  napi_value value;
  napi_create_function(env, name, NAPI_AUTO_LENGTH, fn, data, &value);
  napi_set_named_property(env, exports, name, value);
}

#endif
