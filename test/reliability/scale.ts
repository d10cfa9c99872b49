/** `npm run soak` sets SKIFF_SOAK=1: the same suites at soak scale, printing their figures. */
export const SOAK = process.env.SKIFF_SOAK === '1';

/** Prints a figure line the way the soak report shows it (jest keeps stderr writes plain). */
export function figure(line: string): void {
  process.stderr.write(`  [figure] ${line}\n`);
}
