import { errorReport } from './error-report';
import { print } from './fd-output';

/**
 * A failed command's answer as the oclif commands give it (error-report.ts): `{"error": ...}`
 * on stdout with --json, else one line on stderr; the process exits with its kind's code.
 */
export function printFailure(err: unknown, json: boolean): void {
  const report = errorReport(err);
  process.exitCode = report.exitCode;
  if (json) print(1, [JSON.stringify({ error: report }, null, 2)]);
  else print(2, [`skiff: ${report.message}`]);
}
