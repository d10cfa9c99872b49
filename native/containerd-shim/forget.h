/*
 * `delete`'s word to the serving process when a task's pod keeper died (docs/keeper-protocol.md,
 * "`delete`"): a connection to the serving group's socket with the preamble role 3 (forget) and
 * `task=<id>`. The serving process drops the task without events and closes the connection.
 */
#ifndef SKIFF_FORGET_H
#define SKIFF_FORGET_H

enum forget_result {
  FORGET_DONE = 0,      /* the serving process closed the connection: the task is forgotten (or was unknown) */
  FORGET_NOBODY = 1,    /* nothing serves on the socket: nobody holds the task */
  FORGET_NO_ANSWER = 2, /* connected, but no close within the time (or the send failed) */
};

/* Tells the serving process at group_socket to forget task `id`, waiting at most timeout_ms for its close. */
enum forget_result forget_task(const char *group_socket, const char *id, int timeout_ms);

#endif
