import { closeSync, writeSync } from 'node:fs';
import { nativeAddon } from '../../../os/native-addon';

/**
 * Holds a task's init in CREATED: the process starts as skiff-gate (native/gate/gate.c)
 * blocked reading this pipe, and execs the program in place when the shim writes a
 * byte, so the pid Create reports is the program's (runc's exec.fifo plays this part).
 * The child inherits the read end when it is spawned, so the byte can never be lost.
 */
export class StartGate {
  readonly readFd: number;
  private writeFd: number | undefined;

  constructor() {
    [this.readFd, this.writeFd] = nativeAddon().pipe();
  }

  /** The child holds its copy of the read end. */
  afterSpawn(): void {
    closeSync(this.readFd);
  }

  open(): void {
    if (this.writeFd === undefined) return;
    try {
      writeSync(this.writeFd, 'x');
    } catch (err) {
      // EPIPE: the gate was killed before Start; its exit is on its way to the listener.
      if ((err as NodeJS.ErrnoException).code !== 'EPIPE') throw err;
    } finally {
      this.close();
    }
  }

  /** Without the byte the gate reads end-of-file and exits 0, running nothing. */
  close(): void {
    if (this.writeFd !== undefined) closeSync(this.writeFd);
    this.writeFd = undefined;
  }
}
