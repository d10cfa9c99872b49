import type { Parameters } from 'fast-check';

/** A positive whole number from the environment, else `fallback`. */
function fromEnv(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

/**
 * The budget of a property test over untrusted bytes (the project's fuzzing in jest): a
 * few hundred generated inputs, cut short after a few seconds on a busy machine rather
 * than failing for slowness. A counterexample fails the test with its seed, to replay.
 * `npm run fuzz` (scripts/fuzz.js) raises it: SKIFF_PROPERTY_RUNS inputs, at most
 * SKIFF_PROPERTY_SECONDS each.
 */
export const PROPERTY_BUDGET: Parameters<unknown> = {
  numRuns: fromEnv('SKIFF_PROPERTY_RUNS', 500),
  interruptAfterTimeLimit: fromEnv('SKIFF_PROPERTY_SECONDS', 5) * 1000,
  markInterruptAsFailure: false,
};

/** What a `decodingOnly` service throws when called: decoding passed, and only decoding is under test. */
export class Decoded extends Error {
  constructor() {
    super('decoded');
  }
}

/** A service whose every method throws Decoded: handlers over it show whether a request decoded. */
export function decodingOnly<T extends object>(): T {
  return new Proxy({} as T, {
    get: (_, name) =>
      name === 'then'
        ? undefined
        : () => {
            throw new Decoded();
          },
  });
}
