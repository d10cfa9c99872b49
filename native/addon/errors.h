/* The addon's error helpers (errors.c), for every source file of the addon. */
#ifndef SKIFF_ERRORS_H
#define SKIFF_ERRORS_H
#include <node_api.h>

/* The errno's name ("EACCES"), or "EUNKNOWN". */
const char *skiff_errno_name(int err);

/* Throws an Error with message "syscall: strerror(err)" and code = the errno's name; returns NULL. */
napi_value skiff_throw_errno(napi_env env, const char *syscall, int err);

#endif
