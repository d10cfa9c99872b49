/**
 * Runs async operations one at a time, in arrival order (containerd's per-process
 * mutex). Two Starts sent together must not both see CREATED.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.tail.then(operation, operation);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
