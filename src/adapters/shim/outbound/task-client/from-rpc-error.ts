import { accessSync, constants, lstatSync } from 'node:fs';
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
import { RpcCode, rpcCodeName } from '../../wire/rpc-code';
import { unixPath } from '../../os/unix-address';

type ErrorClass = new (message: string, code: string) => DomainError;

/** The shim's status codes as error kinds; the CLI maps kinds to exit codes once (exit-codes.ts). */
const KIND_BY_CODE: Partial<Record<number, ErrorClass>> = {
  [RpcCode.NOT_FOUND]: NotFoundError,
  [RpcCode.ALREADY_EXISTS]: AlreadyExistsError,
  [RpcCode.INVALID_ARGUMENT]: InvalidArgumentError,
  [RpcCode.OUT_OF_RANGE]: InvalidArgumentError,
  // A request over the 4 MiB message limit: the input is too large.
  [RpcCode.RESOURCE_EXHAUSTED]: InvalidArgumentError,
  [RpcCode.FAILED_PRECONDITION]: FailedPreconditionError,
  [RpcCode.UNIMPLEMENTED]: UnimplementedError,
};

/** A failed call as either transport reports it: grpc-js's ServiceError and TtrpcError both have these. */
export interface RpcFailure {
  readonly code: number;
  readonly details: string;
  readonly message: string;
}

/**
 * Why nobody answers at `path`, found on the filesystem: the transports' own details
 * (grpc-js: "No connection established. Last error: ... Resolution note: ") are their internals.
 */
function whyUnreachable(path: string): string {
  try {
    if (!lstatSync(path).isSocket()) return `${path} is not a socket`;
    accessSync(path, constants.W_OK);
    return 'its socket exists but nothing accepts connections on it (a shim that exited without removing it?)';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'there is no socket there';
    if (code === 'EACCES') return 'permission denied';
    return code ?? 'unknown reason';
  }
}

/** A status from the shim as a domain error; an unreachable shim is a Network error naming the socket. */
export function fromRpcError(err: RpcFailure, address: string): DomainError {
  if (err.code === RpcCode.UNAVAILABLE || err.code === RpcCode.DEADLINE_EXCEEDED) {
    const path = unixPath(address);
    return new NetworkError(
      `cannot reach the shim at ${path}: ${whyUnreachable(path)}; start one with \`skiff shim serve --address ${path}\`, ` +
        'or point --address or SKIFF_ADDRESS at a running one',
      'SHIM.UNREACHABLE',
    );
  }
  const ErrorKind = KIND_BY_CODE[err.code] ?? InternalError;
  return new ErrorKind(err.details || err.message, `RPC.${rpcCodeName(err.code)}`);
}
