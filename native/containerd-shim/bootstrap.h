/*
 * `start`'s bootstrap protocol of containerd 2.3 (api/runtime/bootstrap/v1/bootstrap.proto,
 * proto/containerd/bootstrap.proto here): containerd writes a BootstrapParams on the shim's
 * stdin and reads a BootstrapResult from its stdout. Older daemons write the runtime options (a
 * google.protobuf.Any) or nothing, and read the address as text. An Any decodes as a
 * BootstrapParams too (type_url and value are fields 1 and 2, instance_id and namespace), so the
 * params are taken only when their identity is the command line's -id and -namespace, as
 * containerd's own shims decide (pkg/shim compat.go); anything else is an older daemon, which
 * gets the text every version reads. docs/containerd.md, "The bootstrap protocol".
 */
#ifndef SKIFF_BOOTSTRAP_H
#define SKIFF_BOOTSTRAP_H

#include <stddef.h>

#include "proto-wire.h"

/*
 * The fields of BootstrapParams start reads, each empty when absent. The others repeat what the
 * command line and the environment still say in 2.3 (the ttrpc address, the log level), or are
 * not skiff's to follow (socket_dir: skiff's sockets are under containerd's state dir,
 * docs/on-disk-layout.md).
 */
struct bootstrap_params {
  struct bytes instance_id; /* 1 */
  struct bytes namespace_;  /* 2 */
};

/* BootstrapParams' fields from `len` bytes (the last of a repeated field wins, as proto3 reads). 0, or -1 when not protobuf. */
int bootstrap_params_decode(const unsigned char *in, size_t len, struct bootstrap_params *out);

/*
 * Whether stdin's bytes are a BootstrapParams of this start: decoded, instance_id == id and
 * namespace == ns. 1 then (*out filled); 0 for an older daemon's input (none, an Any, another
 * identity, bytes that are not protobuf).
 */
int bootstrap_params_of(const unsigned char *in, size_t len, const char *id, const char *ns,
                        struct bootstrap_params *out);

/* The task API skiff serves (containerd.task.v2.Task: version 2; 3 would be the sandbox API's task.v3). */
#define BOOTSTRAP_VERSION 2
#define BOOTSTRAP_PROTOCOL "ttrpc"

/* Room enough for bootstrap_result_encode with an address of that length. */
size_t bootstrap_result_max(size_t address_len);

/* BootstrapResult{version BOOTSTRAP_VERSION, address, protocol BOOTSTRAP_PROTOCOL} into out; its length. */
size_t bootstrap_result_encode(unsigned char *out, const char *address);

#endif
