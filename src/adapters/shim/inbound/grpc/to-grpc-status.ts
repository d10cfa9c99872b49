import { Metadata, status as GrpcCode, StatusObject } from '@grpc/grpc-js';
import { ErrorKind, isDomainError } from '../../../../domain/shared/errors';

/** Each error kind's gRPC code, in one place (docs/shim-contract.md, "Errors"). */
const CODE_BY_KIND: Record<ErrorKind, GrpcCode> = {
  NotFound: GrpcCode.NOT_FOUND,
  AlreadyExists: GrpcCode.ALREADY_EXISTS,
  InvalidArgument: GrpcCode.INVALID_ARGUMENT,
  FailedPrecondition: GrpcCode.FAILED_PRECONDITION,
  Unimplemented: GrpcCode.UNIMPLEMENTED,
  Usage: GrpcCode.INVALID_ARGUMENT,
  Configuration: GrpcCode.FAILED_PRECONDITION,
  Identity: GrpcCode.UNAUTHENTICATED,
  Network: GrpcCode.UNAVAILABLE,
  Internal: GrpcCode.INTERNAL,
};

/** A domain error as a gRPC status; anything else is INTERNAL with its message only. */
export function toGrpcStatus(err: unknown): Partial<StatusObject> {
  if (isDomainError(err)) {
    return { code: CODE_BY_KIND[err.kind], details: err.message, metadata: new Metadata() };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: GrpcCode.INTERNAL, details: `internal error: ${message}`, metadata: new Metadata() };
}
