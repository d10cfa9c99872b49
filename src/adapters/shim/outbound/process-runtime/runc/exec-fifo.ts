import { closeSync, constants, openSync, readSync, unlinkSync } from 'node:fs';
import { Socket } from 'node:net';

/** runc's exec fifo in a container's state directory (libcontainer's execFifoFilename). */
export const EXEC_FIFO = 'exec.fifo';

/** What `runc start` answers when the init died before it could be let go (libcontainer's exec()). */
export const INIT_DEAD = 'container process is already dead';

/**
 * What `runc start` does for a created container, without a runc process (docs/runtimes.md,
 * "Start without a runc process"): runc's init waits to open the exec fifo for writing, writes
 * one byte and execs the container's program, the write end closing at the exec. `runc start`
 * (runc 1.0 to 1.4, libcontainer's exec()) opens the fifo for reading, reads until that end
 * closes, and removes the fifo, which is how runc tells created from running.
 *
 * Resolves 'started' once the init has exec'd (or exited after its byte, as runc's start also
 * counts), 'no fifo' when there is none (the caller runs `runc start` for its answer), and
 * rejects with INIT_DEAD when the init ended without its byte (`initExited` resolves).
 */
export function startThroughExecFifo(fifo: string, initExited: Promise<unknown>): Promise<'started' | 'no fifo'> {
  let fd: number;
  try {
    fd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return Promise.resolve('no fifo');
    return Promise.reject(err);
  }
  return new Promise((resolve, reject) => {
    const reader = new Socket({ fd, readable: true, writable: false });
    let bytes = 0;
    let settled = false;
    const settle = (outcome: 'started' | Error) => {
      if (settled) return;
      settled = true;
      reader.destroy();
      if (outcome === 'started') resolve(outcome);
      else reject(outcome);
    };
    reader.on('data', (chunk: Buffer) => {
      // Released: from here runc, which looks for the fifo, reads the container running.
      if (bytes === 0) removeFifo(fifo);
      bytes += chunk.length;
    });
    reader.on('end', () => settle(bytes > 0 ? 'started' : new Error(INIT_DEAD)));
    reader.on('error', (err) => settle(err));
    // An init that dies before it opens the fifo never makes it readable.
    void initExited.then(() => {
      if (settled) return;
      if (bytes === 0 && !readWaitingByte(fifo)) return settle(new Error(INIT_DEAD));
      removeFifo(fifo);
      settle('started');
    });
  });
}

/** Whether a byte waits in the fifo (its writer gone): read through a descriptor of its own. */
function readWaitingByte(fifo: string): boolean {
  let fd: number;
  try {
    fd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    return readSync(fd, Buffer.alloc(1)) > 0;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

function removeFifo(fifo: string): void {
  try {
    unlinkSync(fifo);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
