/** What the runc and containerd suites need, checked once for both (plain JS, shared with the benchmarks). */
const { missingTools } = require('../../scripts/missing-tools.js') as {
  missingTools(tools: readonly string[]): string[];
};

export interface SuiteGate {
  /** The suites, as the one line names them ("runc suites"). */
  readonly suites: string;
  /** The environment variable: 1 makes a missing piece fail the suites, 0 leaves them out. */
  readonly flag: string;
  /** The tools besides root and /bin/busybox, each answering `--version`. */
  readonly tools: readonly string[];
  /** The Debian packages that bring them. */
  readonly packages: string;
}

/** Throws one line naming what is missing and what to do, unless everything `gate` needs is here. */
export function requireSuiteTools(gate: SuiteGate): void {
  const problems = missingTools(gate.tools);
  if (problems.length > 0)
    throw new Error(
      `the ${gate.suites} cannot run: ${problems.join(', ')}. Install them (apt-get install ${gate.packages}) and run as root, or leave ${gate.flag} unset to leave them out.`,
    );
}

const noted = new Set<string>();

/**
 * Whether the suites of `gate` run here. Where a piece is missing they are left out with one
 * line saying why and what to install, so `npm install && npm test` passes on any machine.
 * `<flag>=1` (CI sets it) makes a missing piece fail them instead; `=0` leaves them out.
 */
export function suitesRunHere(gate: SuiteGate): boolean {
  const flag = process.env[gate.flag];
  if (flag === '0') return false;
  if (flag === '1') {
    requireSuiteTools(gate);
    return true;
  }
  const problems = missingTools(gate.tools);
  if (problems.length === 0) return true;
  if (!noted.has(gate.flag))
    process.stderr.write(
      `${gate.suites} not run here: ${problems.join(', ')} (apt-get install ${gate.packages}, run as root; ${gate.flag}=1 makes this an error)\n`,
    );
  noted.add(gate.flag);
  return false;
}
