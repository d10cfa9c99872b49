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
import { RpcCode, rpcCodeName } from '../../helpers/ttrpc/rpc-code';

type ErrorClass = new (message: string, code: string) => DomainError;

const KIND_BY_CODE: Partial<Record<number, ErrorClass>> = {
  [RpcCode.NOT_FOUND]: NotFoundError,
  [RpcCode.ALREADY_EXISTS]: AlreadyExistsError,
  [RpcCode.INVALID_ARGUMENT]: InvalidArgumentError,
  [RpcCode.FAILED_PRECONDITION]: FailedPreconditionError,
  [RpcCode.UNIMPLEMENTED]: UnimplementedError,
};

/** A failed call as either transport reports it: grpc-js's ServiceError and TtrpcError both have these. */
export interface RpcFailure {
  readonly code: number;
  readonly details: string;
  readonly message: string;
}

/** A status from the shim as a domain error; an unreachable shim is a Network error naming the socket. */
export function fromRpcError(err: RpcFailure, address: string): DomainError {
  if (err.code === RpcCode.UNAVAILABLE || err.code === RpcCode.DEADLINE_EXCEEDED) {
    return new NetworkError(
      `cannot reach the shim at ${address} (${err.details}): is \`skiff shim serve --address ${address}\` running?`,
      'SHIM.UNREACHABLE',
    );
  }
  const ErrorKind = KIND_BY_CODE[err.code] ?? InternalError;
  return new ErrorKind(err.details || err.message, `RPC.${rpcCodeName(err.code)}`);
}
