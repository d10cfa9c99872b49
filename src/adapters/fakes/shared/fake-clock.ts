import { Clock } from '../../../application/shared/ports/clock.port';

/** A clock that moves only when told; sleepers wake when `advance` passes their time. */
export class FakeClock implements Clock {
  private time: number;
  private sleepers: Array<{ at: number; wake: () => void }> = [];

  constructor(start = '2030-01-01T00:00:00.000Z') {
    this.time = Date.parse(start);
  }

  now(): Date {
    return new Date(this.time);
  }

  /** What `now()` says, for a test's expectations. */
  get current(): Date {
    return this.now();
  }

  sleep(ms: number): Promise<void> {
    return new Promise((wake) => this.sleepers.push({ at: this.time + ms, wake }));
  }

  /** Moves time on and wakes whoever's sleep ended. */
  advance(ms: number): void {
    this.time += ms;
    const due = this.sleepers.filter((s) => s.at <= this.time);
    this.sleepers = this.sleepers.filter((s) => s.at > this.time);
    for (const sleeper of due) sleeper.wake();
  }

  get pendingSleeps(): number {
    return this.sleepers.length;
  }
}
