/*
 * The few things the keeper reads and writes of ttrpc (github.com/containerd/ttrpc v1.1.1,
 * docs/ttrpc.md): the 10-byte frame header, a Request's method name, whether a Response
 * succeeded, the fields of a State it keeps (state-cache.h), and the Responses it answers in
 * the serving process's place.
 */
#ifndef SKIFF_KEEPER_TTRPC_WIRE_H
#define SKIFF_KEEPER_TTRPC_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define TTRPC_HEADER 10
#define TTRPC_MAX_PAYLOAD (4u << 20) /* ttrpc's messageLengthMax */
#define TTRPC_REQUEST 1
#define TTRPC_RESPONSE 2
#define RPC_RESOURCE_EXHAUSTED 8
#define RPC_UNAVAILABLE 14
#define METHOD_MAX 48

struct ttrpc_header {
  uint32_t length, stream_id;
  uint8_t type, flags;
};

void ttrpc_header_read(const unsigned char *bytes, struct ttrpc_header *h);

/* The method name (ttrpc.Request field 2, the last when repeated) into out; "" when the payload holds none or is not protobuf. */
void ttrpc_request_method(const unsigned char *payload, size_t len, char out[METHOD_MAX]);

/* Whether a ttrpc.Response payload is a success: no status (field 1), or a status with code 0. */
int ttrpc_response_ok(const unsigned char *payload, size_t len);

/*
 * The last field `number` of a message, as protobuf reads a scalar or bytes field: a
 * length-delimited one's bytes (*bytes, *blen), else a varint's value (*varint, *bytes NULL).
 * 1 when found, 0 when absent, -1 when the bytes are not protobuf.
 */
int ttrpc_last_field(const unsigned char *msg, size_t len, uint32_t number, const unsigned char **bytes, size_t *blen,
                     uint64_t *varint);

/* A whole successful Response frame on `stream_id` carrying `payload` (Response{2: payload}); malloc'd, its length in *len. */
unsigned char *ttrpc_payload_frame(uint32_t stream_id, const unsigned char *payload, size_t plen, size_t *len);

/* A whole Response frame on `stream_id` with google.rpc.Status{code, message}; malloc'd, its length in *len. */
unsigned char *ttrpc_status_frame(uint32_t stream_id, uint32_t code, const char *message, size_t *len);

#endif
