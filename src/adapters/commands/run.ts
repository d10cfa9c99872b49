import { Flags } from '@oclif/core';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { RunBundle } from '../../application/shim/run/run-bundle.use-case';
import { AppConfig } from '../../infrastructure/shared/app-config';
import { RUNTIME_NAMES } from '../../infrastructure/shim/shim-config';
import { BaseCommand } from '../shared/inbound/cli/base-command';

export default class Run extends BaseCommand {
  static override summary =
    'Run a bundle in a fresh background shim with your terminal attached; exit with its exit status.';
  static override description =
    'Starts `skiff shim serve` on a private socket, creates and starts the task with this terminal as its stdio ' +
    '(through FIFOs), forwards SIGINT/SIGTERM/SIGHUP/SIGQUIT/SIGUSR1/SIGUSR2 to it, waits, deletes it, shuts the ' +
    'shim down and exits with the exit status (128+signal when a signal ended it).';
  static override examples = [
    '<%= config.bin %> run --bundle examples/hello',
    '<%= config.bin %> run --bundle examples/shell --tty',
    '<%= config.bin %> run --bundle /var/lib/bundles/web --runtime runc --id web',
  ];
  static override flags = {
    bundle: Flags.string({ required: true, description: 'Bundle directory (holds config.json).' }),
    runtime: Flags.string({
      options: [...RUNTIME_NAMES],
      default: 'native',
      description: 'Process runtime for the shim.',
    }),
    tty: Flags.boolean({
      char: 't',
      default: false,
      description: 'Run on a pseudo-terminal (raw mode, window size followed).',
    }),
    id: Flags.string({ description: 'Task id [default: run-<random>].' }),
  };

  protected override appConfig(): AppConfig {
    return { run: true };
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(Run);
    const status = await this.resolve(RunBundle).execute({
      id: flags.id ?? `run-${randomBytes(4).toString('hex')}`,
      bundle: resolve(flags.bundle),
      runtime: flags.runtime,
      terminal: flags.tty,
    });
    this.exit(status);
  }
}
