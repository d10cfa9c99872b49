import { closeSync, constants, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { nativeAddon } from '../../os/native-addon';

/**
 * Holds a task's init in CREATED: the process is a shell blocked reading a FIFO,
 * which then `exec`s the program in place, so the pid Create reports is the
 * program's pid (runc's exec.fifo plays the same part).
 */
export class StartGate {
  /** The gate shell: wait for one line on the FIFO ($0), then become the program. */
  static readonly SCRIPT = 'read -r _ <"$0" && exec "$@"; exit 127';
  readonly path: string;
  private fd: number | undefined;

  constructor(taskDir: string) {
    this.path = join(taskDir, 'start-gate');
    nativeAddon().mkfifo(this.path, 0o600);
    // The shim's read-write end keeps the FIFO alive until the gate has read its
    // line: closed early, the line would vanish with the pipe before the gate opens it.
    this.fd = openSync(this.path, constants.O_RDWR);
  }

  /** The argv that runs `args` behind the gate. */
  wrap(args: readonly string[]): string[] {
    return ['-c', StartGate.SCRIPT, this.path, ...args];
  }

  open(): void {
    if (this.fd !== undefined) writeSync(this.fd, '\n');
  }

  /** After the process exited or was deleted. */
  remove(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    rmSync(this.path, { force: true });
  }
}
