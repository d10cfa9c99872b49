import { RefreshLock } from '../../../application/login/ports/refresh-lock.port';

/** A per-domain mutex in memory; `onAcquire` runs once the lock is held (to simulate another process). */
export class FakeRefreshLock implements RefreshLock {
  private readonly tails = new Map<string, Promise<void>>();
  acquisitions = 0;
  onAcquire: (() => Promise<void> | void) | undefined;

  async withLock<T>(domain: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(domain) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    this.tails.set(
      domain,
      previous.then(() => mine),
    );
    await previous;
    try {
      this.acquisitions += 1;
      await this.onAcquire?.();
      return await work();
    } finally {
      release();
    }
  }
}
