import { constants, openSync } from 'node:fs';
import { Socket } from 'node:net';
import { constants as os } from 'node:os';
import { join } from 'node:path';
import { AttachedConsole, Console, ConsoleEvents } from '../../../../application/shim/ports/console.port';
import { nativeAddon } from '../../os/native-addon';
import { RUN_FILES } from '../../os/run-layout';

/** Signals `skiff run` passes on to the task instead of dying of them. */
const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];

function readEnd(path: string): Socket {
  return new Socket({ fd: openSync(path, constants.O_RDONLY | constants.O_NONBLOCK), readable: true, writable: false });
}

/**
 * This process's stdin/stdout/stderr connected to a task through FIFOs in the run's
 * private (0700) directory, the way `ctr run` does it.
 */
class FifoConsole implements AttachedConsole {
  readonly stdio;
  private readonly cleanups: Array<() => void> = [];
  private readonly outputs: Array<Promise<void>> = [];

  constructor(
    dir: string,
    private readonly terminal: boolean,
  ) {
    const mkfifo = (name: string) => {
      const path = join(dir, name);
      nativeAddon().mkfifo(path, 0o600);
      return path;
    };
    this.stdio = {
      stdin: mkfifo(RUN_FILES.stdin),
      stdout: mkfifo(RUN_FILES.stdout),
      stderr: terminal ? '' : mkfifo(RUN_FILES.stderr),
      terminal,
    };
  }

  connect(events: ConsoleEvents): void {
    this.copyOut(this.stdio.stdout, process.stdout);
    if (this.stdio.stderr !== '') this.copyOut(this.stdio.stderr, process.stderr);
    this.copyIn(events);
    if (this.terminal && process.stdout.isTTY) {
      const resize = () => events.onResize(process.stdout.columns, process.stdout.rows);
      resize();
      process.stdout.on('resize', resize);
      this.cleanups.push(() => process.stdout.off('resize', resize));
    }
    for (const name of FORWARDED) {
      const forward = () => events.onSignal(os.signals[name]);
      process.on(name, forward);
      this.cleanups.push(() => process.off(name, forward));
    }
  }

  private copyOut(path: string, target: NodeJS.WritableStream): void {
    const source = readEnd(path);
    source.pipe(target, { end: false });
    this.outputs.push(new Promise((resolve) => source.once('close', () => resolve())));
    this.cleanups.push(() => source.destroy());
  }

  private copyIn(events: ConsoleEvents): void {
    const sink = new Socket({
      fd: openSync(this.stdio.stdin, constants.O_WRONLY | constants.O_NONBLOCK),
      readable: false,
      writable: true,
    });
    sink.on('error', () => undefined);
    if (this.terminal && process.stdin.isTTY) {
      process.stdin.setRawMode(true);
      this.cleanups.push(() => process.stdin.setRawMode(false));
    }
    process.stdin.pipe(sink);
    process.stdin.once('end', () => events.onStdinEnd());
    this.cleanups.push(() => {
      process.stdin.unpipe(sink);
      process.stdin.pause();
      sink.destroy();
    });
  }

  async outputDone(): Promise<void> {
    await Promise.all(this.outputs);
  }

  close(): void {
    for (const cleanup of this.cleanups.splice(0).reverse()) cleanup();
  }
}

export class FifoConsoleFactory implements Console {
  async attach(terminal: boolean, dir: string): Promise<AttachedConsole> {
    return new FifoConsole(dir, terminal);
  }
}
