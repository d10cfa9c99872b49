/** The one line a command prints when the process ran out of work before the command finished. */
export function unfinishedLine(command: string): string {
  return `skiff: ${command} ended with its work unfinished (nothing kept the process alive while it waited): this is a bug, please report it`;
}

export interface UnfinishedGuard {
  /** The command's work settled (resolved or rejected): the guard is off. */
  done(): void;
}

/**
 * Node ends a process whose event loop is empty with exit code 0, even while a
 * promise the command awaits is still pending: whatever it waited for (a timer, a
 * child, a socket) was unreferenced, so nothing can ever settle it. Left alone that
 * is a silent success that did nothing (`auth git` once exited 0 without reading
 * its token). While the guard is on, 'beforeExit' (emitted only when the loop is
 * empty, never for process.exit) turns that into exit 1 and one line on stderr.
 */
export function guardUnfinished(command: string): UnfinishedGuard {
  const onEmptyLoop = () => {
    process.off('beforeExit', onEmptyLoop);
    process.stderr.write(`${unfinishedLine(command)}\n`);
    process.exitCode = 1;
  };
  process.on('beforeExit', onEmptyLoop);
  return { done: () => process.off('beforeExit', onEmptyLoop) };
}

/** Runs `work` with the guard on until it settles. */
export async function runGuarded<T>(command: string, work: () => Promise<T>): Promise<T> {
  const guard = guardUnfinished(command);
  try {
    return await work();
  } finally {
    guard.done();
  }
}
