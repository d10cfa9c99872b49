import { ErrorKind, isDomainError } from '../../../domain/shared/errors';
import { RpcCode } from './rpc-code';

/** A status as both transports send it: gRPC as (code, details), ttrpc as google.rpc.Status. */
export interface RpcStatus {
  readonly code: RpcCode;
  readonly message: string;
}

/** Each error kind's status code, in one place for gRPC and ttrpc alike (docs/shim-contract.md, "Errors"). */
const CODE_BY_KIND: Record<ErrorKind, RpcCode> = {
  NotFound: RpcCode.NOT_FOUND,
  AlreadyExists: RpcCode.ALREADY_EXISTS,
  InvalidArgument: RpcCode.INVALID_ARGUMENT,
  FailedPrecondition: RpcCode.FAILED_PRECONDITION,
  Unimplemented: RpcCode.UNIMPLEMENTED,
  Usage: RpcCode.INVALID_ARGUMENT,
  Configuration: RpcCode.FAILED_PRECONDITION,
  Identity: RpcCode.UNAUTHENTICATED,
  Network: RpcCode.UNAVAILABLE,
  Internal: RpcCode.INTERNAL,
};

/** A domain error as a status; anything else is INTERNAL with its message only. */
export function toRpcStatus(err: unknown): RpcStatus {
  if (isDomainError(err)) return { code: CODE_BY_KIND[err.kind], message: err.message };
  const message = err instanceof Error ? err.message : String(err);
  return { code: RpcCode.INTERNAL, message: `internal error: ${message}` };
}
