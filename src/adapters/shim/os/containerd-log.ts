import { closeSync, constants, openSync, readdirSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { readRegularFile } from '../../shared/helpers/no-follow-file';

/** `unix://` and a socket path: a line, never more than this. */
const MAX_ADDRESS_FILE = 4096;

/**
 * A bundle's `address`, which containerd-shim-skiff-v2's `start` wrote: the socket its task is
 * served through. Read on the serving process's event loop, so not through a link, not from a
 * FIFO or a device, not past 4 KiB (no-follow-file.ts); undefined when there is none or it is
 * no such file (a problem is thrown, for the caller to skip the bundle).
 */
export function readBundleAddress(bundle: string): string | undefined {
  return readRegularFile(join(bundle, 'address'), { limit: MAX_ADDRESS_FILE });
}

/**
 * The serving process's log: containerd reads each task's `<bundle>/log` FIFO while it is
 * connected to the task and copies it into its own log. `start` made the first task's FIFO
 * the server's stderr, but a group outlives its first task (a namespace's server serves every
 * pod), and once that task is deleted its FIFO has no reader. A write that finds no reader
 * moves the log to the FIFO of a task this server still serves (its bundle's `address` is
 * this server's, or a pod keeper's that relays to it), so lines keep reaching containerd for
 * as long as the server has a task.
 */
export class ContainerdLog {
  private fd: number;
  /** The pod keepers that relay to this server, with their relays open: their tasks' address is theirs. */
  private readonly keepers = new Map<string, number>();

  /**
   * @param bundles containerd's bundles of the namespace: <containerd state>/io.containerd.runtime.v2.task/<ns>
   * @param address what `start` wrote into each bundle's `address` for this server (unix://<socket>)
   */
  constructor(
    private readonly bundles: string,
    private readonly address: string,
    fd = 2,
  ) {
    this.fd = fd;
  }

  /**
   * Tasks whose `address` is a pod keeper relaying to this server are its tasks too
   * (docs/keeper-protocol.md), while one of its relays is open: call the returned function when
   * that relay closes. A keeper that died, or whose pod is gone, is forgotten with its last relay.
   */
  servedThrough(keeperAddress: string): () => void {
    this.keepers.set(keeperAddress, (this.keepers.get(keeperAddress) ?? 0) + 1);
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      const left = (this.keepers.get(keeperAddress) ?? 1) - 1;
      if (left > 0) this.keepers.set(keeperAddress, left);
      else this.keepers.delete(keeperAddress);
    };
  }

  line(text: string): void {
    if (this.write(text)) return;
    const moved = this.openLiveTaskLog();
    if (moved === undefined) return; // no task left to log through: nobody to tell
    if (this.fd !== 2) closeSync(this.fd);
    this.fd = moved;
    this.write(text);
  }

  private write(text: string): boolean {
    try {
      writeSync(this.fd, text);
      return true;
    } catch (err) {
      // EAGAIN: containerd reads behind and the FIFO is full; the line is dropped, the log stays.
      return (err as NodeJS.ErrnoException).code === 'EAGAIN';
    }
  }

  /** A served task's log FIFO opened for writing; non-blocking, so it opens only while containerd reads it. */
  private openLiveTaskLog(): number | undefined {
    let ids: string[];
    try {
      ids = readdirSync(this.bundles);
    } catch {
      return undefined;
    }
    for (const id of ids) {
      const bundle = join(this.bundles, id);
      try {
        const address = readBundleAddress(bundle);
        if (address === undefined) continue;
        if (address !== this.address && !this.keepers.has(address)) continue;
        return openSync(join(bundle, 'log'), constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
      } catch {
        // gone meanwhile, or no reader (ENXIO): try the next
      }
    }
    return undefined;
  }
}
