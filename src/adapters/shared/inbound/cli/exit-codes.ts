import { ErrorKind } from '../../../../domain/shared/errors';

/**
 * Process exit codes (README, "Exit codes and errors"): 0 ok, 1 unexpected, 2 usage,
 * 3 configuration, 4 identity, 5 network.
 */
export const EXIT = { ok: 0, unexpected: 1, usage: 2, configuration: 3, identity: 4, network: 5 } as const;

const EXIT_BY_KIND: Record<ErrorKind, number> = {
  Usage: EXIT.usage,
  InvalidArgument: EXIT.usage,
  Configuration: EXIT.configuration,
  Identity: EXIT.identity,
  Network: EXIT.network,
  NotFound: EXIT.unexpected,
  AlreadyExists: EXIT.unexpected,
  FailedPrecondition: EXIT.unexpected,
  Unimplemented: EXIT.unexpected,
  Internal: EXIT.unexpected,
};

export function exitCodeFor(kind: ErrorKind): number {
  return EXIT_BY_KIND[kind];
}
