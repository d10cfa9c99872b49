import { exitStatusOf } from '../../../src/domain/shim/exit-status';

describe('exit status', () => {
  const at = new Date('2026-01-02T03:04:05Z');

  it('is the exit code of a process that exited', () => {
    expect(exitStatusOf({ code: 7, signal: null }, at)).toEqual({ status: 7, exitedAt: at });
  });

  it('is 128+signal for a process a signal ended', () => {
    expect(exitStatusOf({ code: null, signal: 9 }, at).status).toBe(137);
    expect(exitStatusOf({ code: null, signal: 15 }, at).status).toBe(143);
  });

  it('keeps the time the process exited when the runtime knows it, else takes when it was learnt', () => {
    const exited = new Date('2026-01-02T03:04:01Z');
    expect(exitStatusOf({ code: 0, signal: null, exitedAt: exited }, at)).toEqual({ status: 0, exitedAt: exited });
  });
});
