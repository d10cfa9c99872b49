/*
 * The keeper's ttrpc frame reader (native/keeper/relay.c) on hostile bytes from either side:
 * containerd's connection and the serving process's, each a real socket, as keeper.c drives
 * them. The input is a script of steps, each an op byte, a length byte and that many bytes:
 *   0 containerd sends the bytes, the keeper reads them;  1 the same from the serving process;
 *   2 the keeper writes to the serving process;           3 to containerd;
 *   4 the serving process goes away (a new one connects); 5 waiting requests are refused;
 *   6 the hedge time passes: State requests get the keeper's cached answer (state-cache.h).
 * What the keeper writes is read and checked to be whole frames (a torn frame would desync
 * containerd). test/native/fuzz/corpus/relay/ holds seeds; test/vectors/ttrpc/ adds more.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "relay.h"
#include "state-cache.h"

/* Every pid runs: a kept RUNNING answer is given whenever the cache holds one. */
static int runs(int pid) {
  return pid > 0;
}

struct peer {
  int fd;                /* the fuzzer's end */
  unsigned char *got;    /* what the keeper wrote to this side, not yet a whole frame */
  size_t got_len;
};

static int pair(int *keeper_end, struct peer *peer) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0) return -1;
  *keeper_end = sv[0];
  peer->fd = sv[1];
  return 0;
}

/* Reads what the keeper wrote; every frame in it must be whole and within ttrpc's limit. */
static void drain(struct peer *peer) {
  unsigned char buf[65536];
  ssize_t n;
  while ((n = read(peer->fd, buf, sizeof buf)) > 0) {
    unsigned char *got = realloc(peer->got, peer->got_len + (size_t)n);
    if (got == NULL) abort();
    memcpy(got + peer->got_len, buf, (size_t)n);
    peer->got = got;
    peer->got_len += (size_t)n;
    size_t off = 0;
    while (peer->got_len - off >= TTRPC_HEADER) {
      struct ttrpc_header h;
      ttrpc_header_read(peer->got + off, &h);
      if (h.length > TTRPC_MAX_PAYLOAD) abort(); /* the keeper relays nothing over the limit */
      if (peer->got_len - off < TTRPC_HEADER + (size_t)h.length) break;
      off += TTRPC_HEADER + h.length;
    }
    memmove(peer->got, peer->got + off, peer->got_len - off);
    peer->got_len -= off;
  }
}

static void end_peer(struct peer *peer) {
  if (peer->fd >= 0) close(peer->fd);
  peer->fd = -1;
  free(peer->got);
  peer->got = NULL;
  peer->got_len = 0;
}

/* A new serving process: the keeper's upstream is a fresh connection. */
static int reconnect(struct relay *r, struct peer *up) {
  end_peer(up);
  return pair(&r->up, up);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  state_cache_configure(runs, NULL, 0);
  /* What the last input kept goes, as a pod-wide change drops it. */
  state_cache_change_end(state_cache_change_begin("Shutdown", NULL, 0));
  struct peer down = {-1, NULL, 0}, up = {-1, NULL, 0};
  int down_fd;
  if (pair(&down_fd, &down) != 0) return 0;
  struct relay *r = relay_new(down_fd);
  if (r == NULL || reconnect(r, &up) != 0) abort();
  size_t at = 0;
  int ended = 0;
  while (!ended && at + 2 <= size) {
    uint8_t op = data[at] % 7;
    size_t len = data[at + 1];
    at += 2;
    if (len > size - at) len = size - at;
    const uint8_t *bytes = data + at;
    at += len;
    enum relay_result result = RELAY_OK;
    switch (op) {
    case 0:
    case 1:
      if (r->up < 0 && op == 1) break;
      if (len > 0 && write(op == 0 ? down.fd : up.fd, bytes, len) != (ssize_t)len) abort();
      result = relay_read(r, op == 1);
      break;
    case 2:
      if (r->up >= 0) result = relay_write(r, 1);
      drain(&up);
      break;
    case 3:
      result = relay_write(r, 0);
      drain(&down);
      break;
    case 4:
      relay_lose_upstream(r);
      if (reconnect(r, &up) != 0) abort();
      break;
    case 5:
      relay_refuse_waiting(r, "refused");
      break;
    default:
      relay_answer_overdue(r, relay_now_ms() + 1);
      break;
    }
    /* As keeper.c: a lost upstream is replaced, a lost containerd connection ends the relay. */
    if (result == RELAY_UP_GONE) {
      relay_lose_upstream(r);
      if (reconnect(r, &up) != 0) abort();
    }
    if (result == RELAY_DOWN_GONE) ended = 1;
  }
  relay_free(r);
  end_peer(&down);
  end_peer(&up);
  return 0;
}
