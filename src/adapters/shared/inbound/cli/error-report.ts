import { isDomainError } from '../../../../domain/shared/errors';
import { EXIT, exitCodeFor } from './exit-codes';

/** How a failed command reports: one line (or `{"error": ...}` with --json) and its kind's exit code. */
export interface ErrorReport {
  readonly kind: string;
  readonly message: string;
  readonly exitCode: number;
}

export function errorReport(err: unknown): ErrorReport {
  const error = err instanceof Error ? err : new Error(String(err));
  const exitCode = isDomainError(error)
    ? exitCodeFor(error.kind)
    : ((error as { oclif?: { exit?: number } }).oclif?.exit ?? EXIT.unexpected);
  return {
    kind: isDomainError(error) ? error.kind : 'Internal',
    message: error.message.split('\n')[0] || 'unknown error',
    exitCode,
  };
}
