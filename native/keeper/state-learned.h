/*
 * What containerd asked each process of the pod to be, read from the Create and Exec requests
 * the keeper relays (docs/keeper-protocol.md, "State from the keeper"): the bundle, the stdio
 * paths and the terminal flag, the fields of a State answer that a process keeps from its
 * Create or Exec to its Delete. With the pid of a successful Create's or Start's answer they
 * make the State answer the serving process would give, so that the first State after a start
 * need not wait for a starved or restarting serving process either.
 */
#ifndef SKIFF_KEEPER_STATE_LEARNED_H
#define SKIFF_KEEPER_STATE_LEARNED_H

#include <stddef.h>
#include <stdint.h>

#include "proto-wire.h"

/* Task states (containerd's api/types/task/task.proto). */
#define STATUS_CREATED 1
#define STATUS_RUNNING 2
#define STATUS_STOPPED 3
#define STATUS_PAUSED 4

/* A process's key, "<id>\0<exec id>\0" (malloc'd, its length in *key_len), or NULL when they cannot make one. */
char *state_key(struct bytes id, struct bytes exec, size_t *key_len);
/* The key of the process a request body names as {1: id, 2: exec_id} (StateRequest, StartRequest, ...), or NULL. */
char *state_process_key(const unsigned char *body, size_t len, size_t *key_len);
/* The key of the init of the task a request body names as {1: id} (CreateTaskRequest, PauseRequest, ...), or NULL. */
char *state_task_key(const unsigned char *body, size_t len, size_t *key_len);

/*
 * A request the keeper relays, by its method: a Create or an Exec is remembered, a Delete
 * forgets its process. A Create, an Exec or a Start names the process its success leaves
 * CREATED or RUNNING: its key ("<id>\0<exec id>\0", malloc'd into *key) and that status
 * (STATUS_CREATED, STATUS_RUNNING); 0 for every other request or one that is not protobuf.
 */
int state_learned_request(const char *method, const unsigned char *payload, size_t len, char **key, size_t *key_len);

/* A StateResponse (malloc'd, *len) for the process `key` with `pid` and `status`, or NULL when its Create or Exec was not seen. */
unsigned char *state_learned_answer(const char *key, size_t key_len, uint64_t pid, uint64_t status, size_t *len);

/* Processes remembered: for tests. */
int state_learned_size(void);

#endif
