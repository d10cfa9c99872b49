import type * as FailureOutput from './failure-output';
import { watchStreams, write } from './fd-output';
import { runGuarded } from './unfinished-work';

/**
 * Writes a read path's answer (entry/auth-read.ts, entry/git-credential-read.ts) to stdout
 * and, with `exit`, ends the process at once as runAuth does (see watchStreams). An answer
 * that does not get out (a closed pipe: EPIPE) is one line on stderr and exit 1, as the auth
 * bundle says it; that reporting is loaded only then (it brings node:util).
 */
function writeAnswer(answer: string, options: { readonly exit?: boolean }): void {
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

/** What a read path's work comes to: the answer, or what the full path needs to give it instead. */
export type ReadOutcome<HandOver> = { readonly answer: string } | { readonly handOver: HandOver };

/**
 * A read path's call from bin/run.js: `work` runs guarded as runAuth's does (work left pending
 * is exit 1 and one line, not a silent exit 0); its answer is written (and, with `exit`, the
 * process ends), or its hand-over resolved for the auth bundle.
 */
export async function answerOrHandOver<HandOver>(
  command: string,
  options: { readonly exit?: boolean },
  work: () => Promise<ReadOutcome<HandOver>>,
): Promise<HandOver | undefined> {
  const outcome = await runGuarded(command, work);
  if ('handOver' in outcome) return outcome.handOver;
  writeAnswer(outcome.answer, options);
  return undefined;
}
