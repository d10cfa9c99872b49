/* The protobuf bytes `delete` prints: containerd's task.v2.DeleteResponse (proto/task/v2/shim.proto). */
#ifndef SKIFF_DELETE_RESPONSE_H
#define SKIFF_DELETE_RESPONSE_H

#include <stddef.h>
#include <stdint.h>

/* Room for any DeleteResponse this encodes. */
#define DELETE_RESPONSE_MAX 48

/*
 * DeleteResponse{pid (omitted when 0), exit_status, exited_at{seconds, nanos}} into out, which
 * holds DELETE_RESPONSE_MAX bytes. Returns the length.
 */
size_t delete_response_encode(unsigned char *out, uint32_t pid, uint32_t exit_status, int64_t seconds,
                              int32_t nanos);

/* DeleteResponse{pid, 137, now} on stdout: what `delete` says of a process it SIGKILLed (128 + 9). */
void delete_response_print_killed(uint32_t pid);

#endif
