import { Clock } from '../../../../application/shared/ports/clock.port';

const MAX_TIMER_MS = 2 ** 31 - 1;

export class SystemClock implements Clock {
  now(): Date {
    return new Date();
  }

  /** Waits `ms`, in steps of at most 2^31 - 1 ms: Node turns a longer timer into 1 ms. */
  async sleep(ms: number, options?: { readonly keepAlive?: boolean }): Promise<void> {
    let left = Number.isFinite(ms) ? Math.max(0, ms) : MAX_TIMER_MS;
    do {
      const step = Math.min(left, MAX_TIMER_MS);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, step);
        if (options?.keepAlive !== true) timer.unref();
      });
      left -= step;
    } while (left > 0);
  }
}
