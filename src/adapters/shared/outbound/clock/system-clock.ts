import { Clock } from '../../../../application/shared/ports/clock.port';

export class SystemClock implements Clock {
  now(): Date {
    return new Date();
  }

  sleep(ms: number, options?: { readonly keepAlive?: boolean }): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      if (options?.keepAlive !== true) timer.unref();
    });
  }
}
