/* spawnNoWait's child (launch.c). */
#ifndef SKIFF_LAUNCH_H
#define SKIFF_LAUNCH_H
#include <sys/types.h>

#define MAX_CHILD_FDS 8

/*
 * Starts `file` (argv, envp, in cwd, fds[i] as its fd i, -1: /dev/null) in a new session
 * with default signal dispositions and an empty mask, without waiting for its setsid or
 * its exec.
 * Returns 0 with *pid set, or an errno; ENOSYS where the architecture has no raw system
 * calls (raw-syscall.h) or argv and envp are long enough for an exec to refuse them
 * (E2BIG): the caller then uses posix_spawn, which reports that error.
 */
int skiff_launch(const char *file, char *const argv[], char *const envp[], const char *cwd, const int fds[],
                 int nfds, pid_t *pid);

/*
 * 1 while the child `pid` of skiff_launch has not yet exec'd or exited: it still shares
 * this process's memory and descriptors' copies, and may not have called setsid yet.
 */
int skiff_launch_pending(pid_t pid);

/* Children whose blocks are still mapped (not yet exec'd or exited), after unmapping the others. */
int skiff_launches_held(void);

#endif
