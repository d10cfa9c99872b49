import { Notifier } from '../../../../application/login/ports/notifier.port';

const FRAMES = ['|', '/', '-', '\\'];

/** Lines for the person at the terminal, on stderr (stdout carries results only). */
export class StderrNotifier implements Notifier {
  constructor(private readonly given?: NodeJS.WriteStream) {}

  /** process.stderr is made on first use: a command that prints nothing never opens it. */
  private get stream(): NodeJS.WriteStream {
    return this.given ?? process.stderr;
  }

  info(line: string): void {
    this.stream.write(`${line}\n`);
  }

  warn(line: string): void {
    this.stream.write(`skiff: warning: ${line}\n`);
  }

  /** A spinner on a terminal, one plain line otherwise. */
  waiting(line: string): { done(): void } {
    if (!this.stream.isTTY) {
      this.info(line);
      return { done: () => undefined };
    }
    let frame = 0;
    const draw = () => this.stream.write(`\r${FRAMES[frame++ % FRAMES.length]} ${line}`);
    draw();
    const timer = setInterval(draw, 120);
    timer.unref();
    return {
      done: () => {
        clearInterval(timer);
        this.stream.write('\r\x1b[2K');
      },
    };
  }
}
