import { Clock } from '../../../application/shared/ports/clock.port';

/** A clock that moves only when told; sleepers wake when `advance` passes their time. */
export class FakeClock implements Clock {
  private current: number;
  private sleepers: Array<{ at: number; wake: () => void }> = [];

  constructor(start = '2030-01-01T00:00:00.000Z') {
    this.current = Date.parse(start);
  }

  now(): Date {
    return new Date(this.current);
  }

  sleep(ms: number): Promise<void> {
    return new Promise((wake) => this.sleepers.push({ at: this.current + ms, wake }));
  }

  /** Moves time on and wakes whoever's sleep ended. */
  advance(ms: number): void {
    this.current += ms;
    const due = this.sleepers.filter((s) => s.at <= this.current);
    this.sleepers = this.sleepers.filter((s) => s.at > this.current);
    for (const sleeper of due) sleeper.wake();
  }

  get pendingSleeps(): number {
    return this.sleepers.length;
  }
}
