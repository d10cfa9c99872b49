/**
 * Checks `done` every millisecond until it holds (true) or `deadline` (epoch ms) has passed
 * (false). For the few milliseconds a process needs to exec or to stop, on a signal or a
 * launch this shim cannot be told about.
 */
export async function pollUntil(done: () => boolean, deadline: number): Promise<boolean> {
  while (!done()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return true;
}
