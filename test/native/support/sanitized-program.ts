import { SanitizerRuns } from './sanitizer-run';

/** One case of a sanitized program's exercise: runs the binary through `runs` and checks what it did. */
export interface SanitizedCase {
  readonly name: string;
  run(binary: string, runs: SanitizerRuns): void | Promise<void>;
}

/**
 * A long-lived native program under AddressSanitizer and UndefinedBehaviorSanitizer
 * (sanitized-programs.test.ts builds binding.gyp's target and fails a case on any report).
 */
export interface SanitizedProgram {
  /** binding.gyp's target_name. */
  readonly target: string;
  readonly cases: readonly SanitizedCase[];
  /** Ends what the cases left running or on disk. */
  cleanUp?(): void;
}
