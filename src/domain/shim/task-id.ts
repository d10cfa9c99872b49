import { InvalidArgumentError } from '../shared/errors';

/**
 * containerd's identifier rule (pkg/identifiers/validate.go; docs/shim-contract.md,
 * "Ids"): 1 to 76 characters, runs of letters and digits separated by single '.', '_'
 * or '-'. This keeps ids safe to use as path components: no '/', no '..', no leading or
 * trailing separator, no control characters.
 */
const ID_PATTERN = /^[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*$/;
export const MAX_ID_LENGTH = 76;

/** Throws InvalidArgument naming `what` ('task id', 'exec id') unless `id` is safe. */
export function assertValidId(id: string, what: string): void {
  if (id.length === 0) {
    throw new InvalidArgumentError(`${what} must not be empty`, 'ID.EMPTY');
  }
  if (id.length > MAX_ID_LENGTH) {
    throw new InvalidArgumentError(
      `${what} ${JSON.stringify(id.slice(0, 20) + '...')} is ${id.length} characters long; the limit is ${MAX_ID_LENGTH}`,
      'ID.TOO_LONG',
    );
  }
  if (!ID_PATTERN.test(id)) {
    throw new InvalidArgumentError(
      `${what} ${JSON.stringify(id)} is not valid: use letters and digits separated by single '.', '_' or '-'`,
      'ID.INVALID',
    );
  }
}
