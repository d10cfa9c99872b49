/*
 * Unix stream sockets as skiff's C programs use them: a listener made 0600 from the start
 * (docs/on-disk-layout.md: sockets 0600 in 0700 directories), and a connect. A path that
 * does not fit sun_path is ENAMETOOLONG, never cut short (a cut path names another socket).
 */
#ifndef SKIFF_UNIX_SOCKET_H
#define SKIFF_UNIX_SOCKET_H

/* Binds and listens on path (a stale socket there is replaced): the descriptor, or -1 with
 * errno. `flags` are socket(2)'s type flags (SOCK_CLOEXEC, SOCK_NONBLOCK). */
int unix_listen(const char *path, int flags, int backlog);

/* A connected descriptor, or -1 with errno (ECONNREFUSED, ENOENT: nobody serves). */
int unix_connect(const char *path, int flags);

/* recvmsg of at most `len` bytes with the descriptors that came along (SCM_RIGHTS, made
 * close-on-exec): the first `max` go to fds[] and their number to *got; any beyond them are
 * closed and, like a cut-short control message, set *lost. recvmsg's result. */
long unix_recv_fds(int fd, void *buf, unsigned long len, int flags, int *fds, int max, int *got, int *lost);

/* 1 when something accepts connections on path. */
int unix_answers(const char *path);

#endif
