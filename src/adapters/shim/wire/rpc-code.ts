/**
 * google.rpc.Code: the status codes ttrpc carries in Response.status. They are the
 * numbers gRPC uses too (grpc-js `status`), so one mapping serves both transports.
 */
export const RpcCode = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

export type RpcCode = (typeof RpcCode)[keyof typeof RpcCode];

/** A code's name (NOT_FOUND), or its number for one outside the table. */
export function rpcCodeName(code: number): string {
  return Object.entries(RpcCode).find(([, value]) => value === code)?.[0] ?? String(code);
}
