import { InvalidArgumentError } from '../../../../../domain/shared/errors';

/** CFS weight of nice 0, and the ratio between neighbouring nice levels (sched/core.c). */
const NICE_0_WEIGHT = 1024;
const WEIGHT_RATIO = 1.25;

/**
 * The nice value whose CFS weight is closest to a cgroup v1 `cpu.shares` value
 * (1024 shares = nice 0, each nice step is ~1.25x weight), clamped to -20..19.
 */
export function niceForCpuShares(shares: unknown, subject: string): number {
  if (typeof shares !== 'number' || !Number.isInteger(shares) || shares < 2 || shares > 262144) {
    throw new InvalidArgumentError(
      `${subject}: cpu.shares must be an integer between 2 and 262144`,
      'UPDATE.CPU_SHARES',
    );
  }
  const nice = Math.round(-Math.log(shares / NICE_0_WEIGHT) / Math.log(WEIGHT_RATIO));
  return Math.min(19, Math.max(-20, nice));
}
