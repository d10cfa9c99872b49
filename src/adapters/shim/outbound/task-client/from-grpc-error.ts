import { ServiceError, status as Code } from '@grpc/grpc-js';
import {
  AlreadyExistsError,
  DomainError,
  FailedPreconditionError,
  InternalError,
  InvalidArgumentError,
  NetworkError,
  NotFoundError,
  UnimplementedError,
} from '../../../../domain/shared/errors';

type ErrorClass = new (message: string, code: string) => DomainError;

const KIND_BY_CODE: Partial<Record<Code, ErrorClass>> = {
  [Code.NOT_FOUND]: NotFoundError,
  [Code.ALREADY_EXISTS]: AlreadyExistsError,
  [Code.INVALID_ARGUMENT]: InvalidArgumentError,
  [Code.FAILED_PRECONDITION]: FailedPreconditionError,
  [Code.UNIMPLEMENTED]: UnimplementedError,
};

/** A gRPC status from the shim as a domain error; an unreachable shim is a Network error naming the socket. */
export function fromGrpcError(err: ServiceError, address: string): DomainError {
  if (err.code === Code.UNAVAILABLE || err.code === Code.DEADLINE_EXCEEDED) {
    return new NetworkError(
      `cannot reach the shim at ${address} (${err.details}): is \`skiff shim serve --address ${address}\` running?`,
      'SHIM.UNREACHABLE',
    );
  }
  const ErrorKind = KIND_BY_CODE[err.code] ?? InternalError;
  return new ErrorKind(err.details || err.message, `GRPC.${Code[err.code] ?? err.code}`);
}
