/* The one line a command-line parser refuses with (flags.c, sandbox-flags.c). */
#ifndef SKIFF_SHIM_REFUSE_H
#define SKIFF_SHIM_REFUSE_H

#include <stddef.h>

/* -1, with the formatted line in `why`. The arguments it quotes are anyone's bytes, so a control
 * character in them (a newline would forge a line of containerd's log or the sandbox log) is
 * written as '?'. */
__attribute__((format(printf, 3, 4))) int refuse(char *why, size_t why_size, const char *format, ...);

#endif
