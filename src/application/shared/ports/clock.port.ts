export const CLOCK = Symbol('Clock');

export interface Clock {
  /** now: the current wall-clock time. */
  now(): Date;
  /**
   * sleep: resolves after `ms` milliseconds; the timer does not keep the process alive
   * unless `keepAlive` (a wait that is the command's work, such as polling).
   */
  sleep(ms: number, options?: { readonly keepAlive?: boolean }): Promise<void>;
}
