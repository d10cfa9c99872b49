export const NOTIFIER = Symbol('Notifier');

/** Lines for the person at the terminal (stderr), apart from a command's result. */
export interface Notifier {
  info(line: string): void;
  warn(line: string): void;
  /** A line that stays while something slow is awaited; `done` ends it. */
  waiting(line: string): { done(): void };
}
