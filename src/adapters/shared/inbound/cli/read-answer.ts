import type * as FailureOutput from './failure-output';
import { watchStreams, write } from './fd-output';

/** What the auth bundle needs to answer a call a read path could not: git's request, when one was read. */
export interface HandOver {
  readonly gitRequest?: string;
}

/**
 * Writes a read path's answer (entry/auth-read.ts, entry/git-credential-read.ts) to stdout
 * and, with `exit`, ends the process at once as runAuth does (see watchStreams). An answer
 * that does not get out (a closed pipe: EPIPE) is one line on stderr and exit 1, as the auth
 * bundle says it; that reporting is loaded only then (it brings node:util).
 */
export function writeAnswer(answer: string, options: { readonly exit?: boolean }): void {
  const streams = options.exit === true ? watchStreams() : undefined;
  try {
    if (answer !== '') write(1, answer);
  } catch (err) {
    const { printFailure } = require('./failure-output') as typeof FailureOutput;
    process.exitCode = 1;
    try {
      printFailure(err, false);
    } catch {
      // stderr is gone too: the exit code says it
    }
  }
  if (streams !== undefined && !streams.made()) process.exit();
}
