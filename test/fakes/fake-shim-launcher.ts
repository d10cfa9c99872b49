import { LaunchedShim, ShimLauncher } from '../../src/application/shim/ports/shim-launcher.port';

export class FakeShimLauncher implements ShimLauncher {
  launched: string[] = [];
  stopped = 0;

  async launch(runtime: string): Promise<LaunchedShim> {
    this.launched.push(runtime);
    return { address: '/fake/shim.sock', stop: async () => void this.stopped++ };
  }
}
