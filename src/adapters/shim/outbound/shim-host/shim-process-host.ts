import { ShimHost } from '../../../../application/shim/ports/shim-host.port';

/** ShimHost for the running shim process: its pid, version, and the exit hook. */
export class ShimProcessHost implements ShimHost {
  readonly pid = process.pid;
  private onExit: () => void = () => undefined;

  constructor(
    readonly version: string,
    private readonly log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {}

  warn(line: string): void {
    this.log(line);
  }

  whenExitRequested(listener: () => void): void {
    this.onExit = listener;
  }

  requestExit(): void {
    // After the current reply has been handed to the transport.
    setImmediate(() => this.onExit());
  }
}
