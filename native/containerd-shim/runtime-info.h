/*
 * `-info`'s protobuf: what containerd 2.x reads from a shim run with -info, containerd.types.RuntimeInfo
 * (proto/containerd/introspection.proto), and what it reads on stdin, the runtime options as a
 * google.protobuf.Any (containerd.runc.v1.Options' binary_name is the OCI runtime asked).
 */
#ifndef SKIFF_RUNTIME_INFO_H
#define SKIFF_RUNTIME_INFO_H

#include <stddef.h>

#include "proto-wire.h"

#define RUNC_OPTIONS_TYPE "containerd.runc.v1.Options"
#define RUNTIME_OPTIONS_TYPE "runtimeoptions.v1.Options"
#define FEATURES_TYPE_URL "types.containerd.io/opencontainers/runtime-spec/1/features/Features"
/*
 * The mount types the shim mounts itself, which containerd 2.3's mount manager then leaves to it
 * (core/runtime/v2/task_manager.go allowedMounts, docs/containerd.md "-info"): the rootfs mounts
 * skiff makes with the system calls, idmapped ones included (rootfs-mounts.ts). Not erofs, loop,
 * format/, mkfs/ or mkdir/: those the mount manager does before the shim, as for runc's.
 */
#define ALLOW_MOUNTS_KEY "containerd.io/runtime-allow-mounts"
#define ALLOW_MOUNTS "bind,overlay"

/* A google.protobuf.Any's type_url (1) and value (2), each empty when absent. 0, or -1 when the bytes are not one. */
int any_decode(const unsigned char *buf, size_t len, struct bytes *type_url, struct bytes *value);

/* Whether a type_url names the message `name`: as containerd's typeurl writes it, or after a "host/" prefix. */
int type_url_is(struct bytes type_url, const char *name);

/* containerd.runc.v1.Options' binary_name (6), empty when absent. 0, or -1 when the bytes are not one. */
int runc_options_binary_name(const unsigned char *buf, size_t len, struct bytes *binary_name);

/*
 * The OCI runtime `-info` asks for its features, from the runtime options on stdin (`len` 0:
 * none): "runc", or containerd.runc.v1.Options' binary_name when set, into binary (`size`
 * bytes). 0 when found; 1 when the options are of a type not understood (*type_url names it);
 * -1 with one line of why in *why.
 */
int info_runtime_binary(const unsigned char *in, size_t len, char *binary, size_t size, struct bytes *type_url,
                        const char **why);

/* Room enough for runtime_info_encode's output with these lengths. */
size_t runtime_info_max(size_t name_len, size_t version_len, size_t options_len, size_t features_len);

/*
 * RuntimeInfo{name, version{version, revision ""}, options (the Any's bytes as received, left out
 * when empty), features (Any{FEATURES_TYPE_URL, the runtime's features JSON}, left out when
 * features.data is NULL), annotations {ALLOW_MOUNTS_KEY: ALLOW_MOUNTS}} into out, which holds
 * runtime_info_max(...) bytes. Returns the length.
 */
size_t runtime_info_encode(unsigned char *out, const char *name, const char *version, struct bytes options,
                           struct bytes features);

#endif
