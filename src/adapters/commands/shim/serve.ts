import { Flags } from '@oclif/core';
import { ADDRESS_VARIABLE, defaultAddress, defaultStateDir } from '../../../infrastructure/shim/shim-config';
import { DEFAULT_RUNTIME, isRuntimeName, RUNTIME_NAMES, runtimeChoices } from '../../../infrastructure/shim/runtimes';
import { serveShim } from '../../../infrastructure/shim/serve-shim';
import { BaseCommand } from '../../shared/inbound/cli/base-command';

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
  static override flags = {
    address: Flags.string({
      env: ADDRESS_VARIABLE,
      description:
        'Path of the unix socket to serve (unix:/path also accepted) ' +
        '[default: $XDG_RUNTIME_DIR/skiff/shim.sock, /run/skiff/shim.sock as root, else /tmp/skiff-<uid>/shim.sock].',
    }),
    runtime: Flags.string({
      options: [...RUNTIME_NAMES],
      default: DEFAULT_RUNTIME,
      description: `Process runtime: ${runtimeChoices()}.`,
    }),
    'run-dir': Flags.string({
      hidden: true,
      description: 'The shim of one `skiff run`: the run directory, removed when the shim exits.',
    }),
    lifeline: Flags.boolean({
      hidden: true,
      default: false,
      description: 'Exit, ending every task, when standard input reaches end-of-file (`skiff run --rm`).',
    }),
    'state-dir': Flags.string({
      description:
        'Directory for per-task files [default: $XDG_RUNTIME_DIR/skiff/state, /run/skiff/state as root, else /tmp/skiff-<uid>/state].',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ShimServe);
    await serveShim({
      address: flags.address ?? defaultAddress(),
      runtime: isRuntimeName(flags.runtime) ? flags.runtime : DEFAULT_RUNTIME,
      stateDir: flags['state-dir'] ?? defaultStateDir(),
      runDir: flags['run-dir'],
      lifeline: flags.lifeline,
    });
    // Serving continues on the event loop until Shutdown or a signal exits the process.
    await new Promise<never>(() => undefined);
  }
}
