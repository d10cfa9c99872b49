export const CLOCK = Symbol('Clock');

export interface Clock {
  /** now: the current wall-clock time. */
  now(): Date;
  /** sleep: resolves after `ms` milliseconds (a timer that does not keep the process alive). */
  sleep(ms: number): Promise<void>;
}
