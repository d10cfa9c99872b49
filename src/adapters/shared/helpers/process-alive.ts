/**
 * Whether a process with this pid exists: signal 0 checks without sending (kill(2)). EPERM
 * means it exists under another user, so it counts as alive.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
