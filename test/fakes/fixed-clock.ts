import { Clock } from '../../src/application/shared/ports/clock.port';

/** A clock that says what the test sets; sleeps resolve at once (or when released). */
export class FixedClock implements Clock {
  constructor(public current: Date = new Date('2026-11-21T10:00:00Z')) {}

  now(): Date {
    return this.current;
  }

  async sleep(): Promise<void> {}
}
