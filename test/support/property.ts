import type { Parameters } from 'fast-check';

/**
 * The budget of a property test over untrusted bytes (the project's fuzzing in jest): a
 * few hundred generated inputs, cut short after a few seconds on a busy machine rather
 * than failing for slowness. A counterexample fails the test with its seed, to replay.
 */
export const PROPERTY_BUDGET: Parameters<unknown> = {
  numRuns: 500,
  interruptAfterTimeLimit: 5_000,
  markInterruptAsFailure: false,
};
