import { ServiceError, status as Code } from '@grpc/grpc-js';
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

type ErrorClass = new (message: string, code: string) => DomainError;

/** The shim's status codes as error kinds; the CLI maps kinds to exit codes once (exit-codes.ts). */
const KIND_BY_CODE: Partial<Record<Code, ErrorClass>> = {
  [Code.NOT_FOUND]: NotFoundError,
  [Code.ALREADY_EXISTS]: AlreadyExistsError,
  [Code.INVALID_ARGUMENT]: InvalidArgumentError,
  [Code.OUT_OF_RANGE]: InvalidArgumentError,
  // A request over the 4 MiB message limit: the input is too large.
  [Code.RESOURCE_EXHAUSTED]: InvalidArgumentError,
  [Code.FAILED_PRECONDITION]: FailedPreconditionError,
  [Code.UNIMPLEMENTED]: UnimplementedError,
};

/**
 * Why nobody answers at `path`, found on the filesystem: grpc-js's own details
 * ("No connection established. Last error: ... Resolution note: ") are its internals.
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

/** A gRPC status from the shim as a domain error; an unreachable shim is a Network error naming the socket. */
export function fromGrpcError(err: ServiceError, address: string): DomainError {
  if (err.code === Code.UNAVAILABLE || err.code === Code.DEADLINE_EXCEEDED) {
    const path = address.replace(/^unix:(\/\/)?/, '');
    return new NetworkError(
      `cannot reach the shim at ${path}: ${whyUnreachable(path)}; start one with \`skiff shim serve --address ${path}\`, ` +
        'or point --address or SKIFF_ADDRESS at a running one',
      'SHIM.UNREACHABLE',
    );
  }
  const ErrorKind = KIND_BY_CODE[err.code] ?? InternalError;
  return new ErrorKind(err.details || err.message, `GRPC.${Code[err.code] ?? err.code}`);
}
