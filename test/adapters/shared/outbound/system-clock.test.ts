import { SystemClock } from '../../../../src/adapters/shared/outbound/clock/system-clock';

describe('SystemClock.sleep', () => {
  it('a sleep longer than setTimeout allows (2^31 - 1 ms) still waits, never 1 ms', async () => {
    let woke = false;
    void new SystemClock().sleep(3_000_000_000).then(() => {
      woke = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(woke).toBe(false);
  });

  it('a short sleep wakes on time', async () => {
    const started = Date.now();
    await new SystemClock().sleep(20);
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
  });
});
