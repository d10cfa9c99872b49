/* `sandbox`'s command line (sandbox.c): not containerd's flags, so flags.c does not read it. */
#ifndef SKIFF_SHIM_SANDBOX_FLAGS_H
#define SKIFF_SHIM_SANDBOX_FLAGS_H

#include <stddef.h>

/* A pod has a handful; a bound keeps the table small and fixed. */
#define SANDBOX_SYSCTLS_MAX 128
/* Longer than any sysctl's name, the slash form's interface names included. */
#define SANDBOX_SYSCTL_KEY_MAX 255

struct sandbox_sysctl {
  const char *key;   /* into argv: the KEY of "KEY=VALUE", key_len bytes (not NUL-ended) */
  size_t key_len;
  const char *value; /* into argv: after the first '=' */
};

struct sandbox_flags {
  const char *pid_file, *netns, *hostname; /* NULL when not given */
  int share_pid, host_ipc, host_uts;
  int sysctl_count;
  struct sandbox_sysctl sysctls[SANDBOX_SYSCTLS_MAX];
};

/*
 * Reads argv after `sandbox` (argv[0] the binary, argv[1] "sandbox"): --name VALUE or --name=VALUE.
 * A sysctl must be of a namespace the sandbox has of its own (net with --netns, ipc without
 * --host-ipc, uts without --host-uts): any other write would change the host's. Returns 0, or -1
 * with one line in `why` naming the flag and what to do (control characters shown as '?').
 */
int parse_sandbox_flags(int argc, char *const *argv, struct sandbox_flags *f, char *why, size_t why_size);

/* /proc/sys/<key>: dots become slashes, unless the key has a slash (Kubernetes' other spelling, where
 * a dot is part of a name: net/ipv4/conf/eth0.100/forwarding). 0, or -1 when it does not fit. */
int sandbox_sysctl_path(const struct sandbox_sysctl *s, char *out, size_t size);

#endif
