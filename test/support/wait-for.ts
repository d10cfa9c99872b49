/** How long waitFor sleeps between checks: short enough that a suite does not idle long on any one wait. */
const WAIT_STEP_MS = 10;

/**
 * Calls `check` every WAIT_STEP_MS until it returns something other than false or undefined,
 * and resolves with that; so a boolean check resolves `true`, a lookup resolves what it found.
 * Past `timeoutMs` it rejects with "timed out after <ms> ms waiting for <what>"; a `what` given as a
 * function is called then, so the message can tell what was last seen. An error thrown by
 * `check` rejects at once.
 */
export async function waitFor<T>(
  what: string | (() => string),
  check: () => T | Promise<T>,
  timeoutMs = 10_000,
): Promise<Exclude<T, false | undefined>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== false && value !== undefined) return value as Exclude<T, false | undefined>;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
  }
}
