import { closeSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InternalError } from '../../../../../domain/shared/errors';
import { nativeAddon } from '../../../os/native-addon';

/**
 * runc's `--console-socket`: a unix socket on which runc sends the master of the
 * pseudo-terminal it made for the container (SCM_RIGHTS). It lives in a short private
 * directory under the temp dir (as containerd's does), because socket paths are limited
 * to 107 bytes and state directories can be long.
 */
export class ConsoleSocket {
  readonly path: string;
  private readonly dir: string;
  private listenFd: number | undefined;

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'skiff-pty-'));
    this.path = join(this.dir, 'pty.sock');
    try {
      this.listenFd = nativeAddon().listenUnix(this.path);
    } catch (err) {
      rmSync(this.dir, { recursive: true, force: true });
      throw err;
    }
  }

  /**
   * The terminal master runc sent. Called once runc has exited successfully: its
   * connection and the descriptor it carried wait in the socket's queue until accepted.
   */
  receive(subject: string): number {
    if (this.listenFd === undefined) throw new InternalError(`${subject}: console socket already closed`, 'PTY.CLOSED');
    try {
      return nativeAddon().receiveFd(this.listenFd);
    } catch (err) {
      throw new InternalError(
        `${subject}: runc sent no terminal over the console socket (${(err as Error).message})`,
        'PTY.NOT_RECEIVED',
        { cause: err },
      );
    } finally {
      this.close();
    }
  }

  close(): void {
    if (this.listenFd !== undefined) closeSync(this.listenFd);
    this.listenFd = undefined;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
