/*
 * native/keeper/exec-fifo.c on real FIFOs, with this process in both parts: nothing to read
 * while the writer is connected, the byte (and the fifo's removal at it), the write end's close
 * (started), an end without the byte (dead), and after an exit (never waiting).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "exec-fifo.h"

static void make_fifo(char *path, size_t size, const char *dir, const char *name) {
  snprintf(path, size, "%s/%s", dir, name);
  CHECK(mkfifo(path, 0600) == 0);
}

int main(void) {
  char dir[] = "/tmp/skiff-exec-fifo-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[256];

  /* The init's byte, then the close of its end at the exec. */
  make_fifo(path, sizeof path, dir, "a");
  struct exec_fifo f = EXEC_FIFO_NONE;
  CHECK(exec_fifo_open(&f, path) == 0 && f.fd >= 0);
  int w = open(path, O_WRONLY | O_NONBLOCK);
  CHECK(w >= 0);
  CHECK(exec_fifo_read(&f) == EXEC_FIFO_WAITING);
  CHECK(write(w, "0", 1) == 1);
  CHECK(exec_fifo_read(&f) == EXEC_FIFO_WAITING);
  CHECK(access(path, F_OK) != 0); /* removed at the byte: runc reads the container running */
  close(w);
  CHECK(exec_fifo_read(&f) == EXEC_FIFO_STARTED);
  CHECK_STR(exec_fifo_word(EXEC_FIFO_STARTED), "started");
  exec_fifo_close(&f);
  CHECK(f.fd == -1 && f.path == NULL);
  exec_fifo_close(&f);

  /* A writer that closes without the byte: dead, and the fifo stays. */
  make_fifo(path, sizeof path, dir, "b");
  CHECK(exec_fifo_open(&f, path) == 0);
  w = open(path, O_WRONLY | O_NONBLOCK);
  close(w);
  CHECK(exec_fifo_read(&f) == EXEC_FIFO_DEAD);
  CHECK(access(path, F_OK) == 0);
  CHECK_STR(exec_fifo_word(EXEC_FIFO_DEAD), "dead");
  exec_fifo_close(&f);

  /* After the init's exit: no writer ever came (dead), or its byte waits (started). */
  CHECK(exec_fifo_open(&f, path) == 0);
  CHECK(exec_fifo_after_exit(&f) == EXEC_FIFO_DEAD);
  exec_fifo_close(&f);
  CHECK(exec_fifo_open(&f, path) == 0);
  w = open(path, O_WRONLY | O_NONBLOCK);
  CHECK(write(w, "0", 1) == 1);
  CHECK(exec_fifo_after_exit(&f) == EXEC_FIFO_STARTED); /* the writer still open: never waiting */
  close(w);
  exec_fifo_close(&f);
  CHECK(unlink(path) != 0); /* removed at the byte */

  /* No fifo: ENOENT, nothing held. */
  snprintf(path, sizeof path, "%s/none", dir);
  CHECK(exec_fifo_open(&f, path) == -1 && errno == ENOENT && f.fd == -1 && f.path == NULL);
  CHECK_STR(exec_fifo_word(EXEC_FIFO_FAILED), "failed");

  snprintf(path, sizeof path, "%s/a", dir);
  unlink(path);
  CHECK(rmdir(dir) == 0);
  return CHECK_RESULT;
}
