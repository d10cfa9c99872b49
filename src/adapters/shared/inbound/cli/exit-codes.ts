import { ErrorKind } from '../../../../domain/shared/errors';

/**
 * Process exit codes (README, "Exit codes and errors"): 0 ok, 1 unexpected, 2 usage,
 * 3 configuration, 4 identity, 5 network.
 */
export const EXIT = { ok: 0, unexpected: 1, usage: 2, configuration: 3, identity: 4, network: 5 } as const;

/**
 * The one mapping from error kinds to exit codes. The shim's refusals reach `skiff task`
 * as gRPC status codes that become these kinds (task-client/from-rpc-error.ts): a
 * request the shim cannot carry out as asked (an unknown id, an id taken, the wrong
 * state, malformed input) is a usage error; a feature the shim's runtime lacks is its
 * configuration; an unreachable shim is the network; anything else is unexpected.
 */
const EXIT_BY_KIND: Record<ErrorKind, number> = {
  Usage: EXIT.usage,
  InvalidArgument: EXIT.usage,
  NotFound: EXIT.usage,
  AlreadyExists: EXIT.usage,
  FailedPrecondition: EXIT.usage,
  Unimplemented: EXIT.configuration,
  Configuration: EXIT.configuration,
  Identity: EXIT.identity,
  Network: EXIT.network,
  Internal: EXIT.unexpected,
};

export function exitCodeFor(kind: ErrorKind): number {
  return EXIT_BY_KIND[kind];
}
