import { ShimHost } from '../../../application/shim/ports/shim-host.port';

export class FakeShimHost implements ShimHost {
  readonly pid = 4242;
  readonly version = '9.9.9-test';
  exitRequests = 0;
  readonly warnings: string[] = [];

  warn(line: string): void {
    this.warnings.push(line);
  }

  requestExit(): void {
    this.exitRequests++;
  }
}
