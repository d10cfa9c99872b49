import { waitFor } from './wait-for';

describe('waitFor (the one polling helper of the suites)', () => {
  it('rejects after the timeout, naming what it waited for', async () => {
    let calls = 0;
    const started = Date.now();
    await expect(waitFor('the moon to turn blue', () => (calls++, false), 60)).rejects.toThrow(
      'timed out after 60 ms waiting for the moon to turn blue',
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(60);
    expect(calls).toBeGreaterThan(1);
  });

  it('resolves with the first value that is not undefined, once it appears', async () => {
    const found = { pid: 42 };
    let calls = 0;
    await expect(waitFor('the pid', () => (++calls < 4 ? undefined : found))).resolves.toBe(found);
    expect(calls).toBe(4);
  });

  it('takes a boolean check: false is "not yet", true resolves', async () => {
    let calls = 0;
    await expect(waitFor('the third call', async () => ++calls === 3)).resolves.toBe(true);
  });

  it('counts 0, null and the empty string as values', async () => {
    await expect(waitFor('zero', () => 0)).resolves.toBe(0);
    await expect(waitFor('null', () => null)).resolves.toBeNull();
    await expect(waitFor('empty', () => '')).resolves.toBe('');
  });

  it('asks a `what` given as a function at the timeout, so it can say what was last seen', async () => {
    let seen = 'created';
    const check = () => {
      seen = 'running';
      return false;
    };
    await expect(waitFor(() => `the task to stop (it is ${seen})`, check, 30)).rejects.toThrow(
      'waiting for the task to stop (it is running)',
    );
  });

  it('rejects at once with the error a check throws', async () => {
    const started = Date.now();
    await expect(
      waitFor('a broken check', () => {
        throw new Error('no such file');
      }),
    ).rejects.toThrow('no such file');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
