/**
 * One error taxonomy for the whole program. Each transport maps `kind` once:
 * status codes (gRPC and ttrpc alike) in adapters/shim/wire/rpc-status.ts,
 * exit codes in the CLI base command. Never choose a mapping by reading the message text.
 */
export type ErrorKind =
  | 'NotFound'
  | 'AlreadyExists'
  | 'InvalidArgument'
  | 'FailedPrecondition'
  | 'Unimplemented'
  | 'Usage'
  | 'Configuration'
  | 'Identity'
  | 'Network'
  | 'Internal';

export abstract class DomainError extends Error {
  abstract readonly kind: ErrorKind;

  constructor(
    message: string,
    /** A stable, greppable identifier such as 'TASK.INVALID_TRANSITION'. */
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class NotFoundError extends DomainError {
  readonly kind = 'NotFound';
}

export class AlreadyExistsError extends DomainError {
  readonly kind = 'AlreadyExists';
}

export class InvalidArgumentError extends DomainError {
  readonly kind = 'InvalidArgument';
}

export class FailedPreconditionError extends DomainError {
  readonly kind = 'FailedPrecondition';
}

export class UnimplementedError extends DomainError {
  readonly kind = 'Unimplemented';
}

/** A command line the program cannot act on (unknown flag, removed flag, missing argument). */
export class UsageError extends DomainError {
  readonly kind = 'Usage';
}

/** Something the user must configure first (no domain, bad context). */
export class ConfigurationError extends DomainError {
  readonly kind = 'Configuration';
}

/** Sign-in problems: not logged in, expired session, rejected token, CSRF. */
export class IdentityError extends DomainError {
  readonly kind = 'Identity';
}

/** A remote side could not be reached or answered with a failure status. */
export class NetworkError extends DomainError {
  readonly kind = 'Network';
}

/** A fault of our own or of the machine (a syscall that should not fail did). */
export class InternalError extends DomainError {
  readonly kind = 'Internal';
}

export function isDomainError(err: unknown): err is DomainError {
  return err instanceof DomainError;
}
