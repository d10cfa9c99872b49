/* The verbs of containerd-shim-skiff-v2 (containerd-shim.c runs one per call), each in its own file. */
#ifndef SKIFF_SHIM_VERBS_H
#define SKIFF_SHIM_VERBS_H

#include "flags.h"

int do_start(const struct flags *f);  /* start.c */
int do_delete(const struct flags *f); /* delete.c */
/* delete-sandbox.c: do_delete's part in a sandbox's bundle (`state`: containerd's state dir) */
int delete_sandbox(const char *id, const char *bundle, const char *state);
int do_info(void);                    /* info.c */
int do_keep(const struct flags *f);   /* keep.c */
int do_serve(const struct flags *f);  /* serve-verb.c */
int do_sandbox(int argc, char **argv); /* sandbox.c: its own flags (sandbox-flags.c), not containerd's */

#endif
