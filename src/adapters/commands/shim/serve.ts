import { defaultAddress, defaultStateDir } from '../../../infrastructure/shim/shim-config';
import { SERVE_FLAGS } from '../../../infrastructure/shim/serve-flags';
import { DEFAULT_RUNTIME, isRuntimeName } from '../../../infrastructure/shim/runtimes';
import { serveShim } from '../../../infrastructure/shim/serve-shim';
import { BaseCommand } from '../../shared/inbound/cli/base-command';
import { oclifFlags } from '../../shared/inbound/cli/oclif-flags';

export default class ShimServe extends BaseCommand {
  static override summary = 'Serve the task.v2.Task gRPC service on a unix socket (runs in the foreground).';
  static override description =
    'Ready when the socket accepts gRPC connections (target unix:<path>). The socket is created 0600, its ' +
    'directory 0700 when missing. Exits 0 after a Shutdown that ends it, or on SIGTERM/SIGINT (live processes ' +
    'get SIGTERM, then SIGKILL after 2 s), removing the socket.';
  static override examples = [
    '<%= config.bin %> shim serve',
    '<%= config.bin %> shim serve --address /run/skiff/shim.sock',
    '<%= config.bin %> shim serve --address /tmp/s.sock --runtime runc --state-dir /run/skiff/state',
  ];
  static override flags = oclifFlags(SERVE_FLAGS);

  async run(): Promise<void> {
    const { flags } = await this.parse(ShimServe);
    await serveShim({
      address: flags.address ?? defaultAddress(),
      runtime: flags.runtime !== undefined && isRuntimeName(flags.runtime) ? flags.runtime : DEFAULT_RUNTIME,
      stateDir: flags['state-dir'] ?? defaultStateDir(),
      runDir: flags['run-dir'],
      lifeline: flags.lifeline,
    });
    // Serving continues on the event loop until Shutdown or a signal exits the process.
    await new Promise<never>(() => undefined);
  }
}
