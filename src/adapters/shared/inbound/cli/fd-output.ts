import { writeSync } from 'node:fs';

/**
 * Writes straight to the file descriptor: process.stdout and process.stderr would
 * first load Node's stream and socket modules, a few milliseconds for one line.
 * A non-blocking descriptor that is full (EAGAIN) gets the rest through the stream.
 */
export function print(fd: 1 | 2, lines: readonly string[]): void {
  write(fd, `${lines.join('\n')}\n`);
}

export function write(fd: 1 | 2, text: string): void {
  const bytes = Buffer.from(text);
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      (fd === 1 ? process.stdout : process.stderr).write(bytes.subarray(offset));
      return;
    }
  }
}

/**
 * After the last callback Node still runs what V8 scheduled (a young-generation
 * collection, as a task) and tears the heap down: about 3 ms of a ~50 ms command
 * (docs/performance.md, "The login flow"). process.exit skips both. It would also cut
 * short a write still queued in process.stdout or process.stderr (a pipe's writes are
 * asynchronous), so it is taken only when neither stream was made: the answer went
 * out with writeSync. Node makes the two on first access, through getters on process;
 * these notice that access.
 */
export function watchStreams(): { made(): boolean } {
  let made = false;
  for (const name of ['stdout', 'stderr'] as const) {
    const node = Object.getOwnPropertyDescriptor(process, name);
    if (node?.get === undefined) {
      made = true; // already a value: treat it as in use
      continue;
    }
    const get = node.get;
    Object.defineProperty(process, name, {
      ...node,
      get() {
        made = true;
        return get.call(process);
      },
    });
  }
  return { made: () => made };
}
