import { cpus, loadavg, totalmem } from 'node:os';

/** `npm run soak` sets SKIFF_SOAK=1: the same suites at soak scale, printing their figures. */
export const SOAK = process.env.SKIFF_SOAK === '1';

/** Prints a figure line the way the soak report shows it (jest keeps stderr writes plain). */
export function figure(line: string): void {
  process.stderr.write(`  [figure] ${line}\n`);
}

/** The machine a figure was measured on, and how busy it was: a figure means little without it. */
export function machine(): string {
  const cpu = cpus();
  const model = cpu[0]?.model.trim() || 'unknown CPU';
  const memory = Math.round(totalmem() / 2 ** 30);
  return `${cpu.length} x ${model}, ${memory} GiB, Node ${process.version}, load average ${loadavg()[0].toFixed(2)}`;
}
