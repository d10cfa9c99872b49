import { AttachedConsole, Console, ConsoleEvents } from '../../../application/shim/ports/console.port';

/** A console with no terminal behind it: tests raise its events by hand. */
export class FakeConsole implements Console, AttachedConsole {
  stdio = { stdin: '', stdout: '', stderr: '', terminal: false };
  events: ConsoleEvents | undefined;
  closed = false;
  outputWaited = false;

  dir: string | undefined;

  async attach(terminal: boolean, dir: string): Promise<AttachedConsole> {
    this.stdio = { ...this.stdio, terminal };
    this.dir = dir;
    return this;
  }

  connect(events: ConsoleEvents): void {
    this.events = events;
  }

  async outputDone(): Promise<void> {
    this.outputWaited = true;
  }

  close(): void {
    this.closed = true;
  }
}
