/*
 * runc's start handshake on a container's exec fifo, which the keeper does for `S`
 * (docs/keeper-protocol.md, "The control connection"; docs/runtimes.md, "Start without a
 * runc process"): runc's init waits to open the fifo for writing until a reader comes,
 * writes one byte and execs the container's program, its write end closing at the exec;
 * `runc start` (runc 1.0 to 1.4, libcontainer's exec()) reads until that end closes and
 * removes the fifo, which is how runc tells a created container from a running one.
 */
#ifndef SKIFF_KEEPER_EXEC_FIFO_H
#define SKIFF_KEEPER_EXEC_FIFO_H

#include <stddef.h>

enum exec_fifo_state {
  EXEC_FIFO_WAITING, /* the write end is still open: read again when the fifo turns readable */
  EXEC_FIFO_STARTED, /* the byte came and the write end closed (the exec, or the init's end after its byte) */
  EXEC_FIFO_DEAD,    /* the write end closed, or the init ended, without the byte */
  EXEC_FIFO_FAILED,  /* read failed: errno in `err` */
};

struct exec_fifo {
  int fd; /* -1: no handshake in progress */
  char *path;
  size_t bytes;
  int err;
};

#define EXEC_FIFO_NONE {.fd = -1}

/* Opens `path` for reading, non-blocking and close-on-exec: 0, or -1 with errno (ENOENT: no fifo, so no created container). */
int exec_fifo_open(struct exec_fifo *f, const char *path);

/* After the fifo turned readable (never before: with no writer yet a read says end-of-file). The fifo is removed at the first byte. */
enum exec_fifo_state exec_fifo_read(struct exec_fifo *f);

/* The init has exited: what is left in the fifo decides, never WAITING. */
enum exec_fifo_state exec_fifo_after_exit(struct exec_fifo *f);

/* Ends the handshake (the descriptor leaves any epoll with it). */
void exec_fifo_close(struct exec_fifo *f);

/* The word `s` carries for a state: started, dead, failed. */
const char *exec_fifo_word(enum exec_fifo_state state);

#endif
