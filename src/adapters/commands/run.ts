import { Flags } from '@oclif/core';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { InvalidArgumentError, UsageError } from '../../domain/shared/errors';
import { RunBundle } from '../../application/shim/run/run-bundle.use-case';
import { RunDetached } from '../../application/shim/run/run-detached.use-case';
import { AppConfig } from '../../infrastructure/shared/app-config';
import { DEFAULT_RUNTIME, RUNTIME_NAMES } from '../../infrastructure/shim/runtimes';
import { BaseCommand } from '../shared/inbound/cli/base-command';

export default class Run extends BaseCommand {
  static override summary = 'Run a bundle in a shim of its own with your terminal attached; exit with its exit status.';
  static override description =
    'Starts `skiff shim serve` for this run (its files in $XDG_RUNTIME_DIR/skiff/runs/<id>), creates and starts ' +
    'the task with this terminal as its stdio (through FIFOs), forwards SIGINT/SIGTERM/SIGHUP/SIGQUIT/SIGUSR1/SIGUSR2 ' +
    'to it, waits, deletes it, shuts the shim down and exits with the exit status (128+signal when a signal ended ' +
    'it). If `skiff run` itself is killed, the task runs on: `skiff task ls` lists it and `skiff task kill --id` ' +
    'ends it; with --rm the shim ends it at once. With -d the task is started, its id printed, and it runs on.';
  static override examples = [
    '<%= config.bin %> run --bundle examples/hello',
    '<%= config.bin %> run --rm --env GREETING=hi --cwd /tmp --bundle examples/hello',
    '<%= config.bin %> run -d --id sleeper --bundle examples/sleep',
    '<%= config.bin %> run --bundle examples/shell --tty',
    '<%= config.bin %> run --bundle /var/lib/bundles/web --runtime runc --id web',
  ];
  static override flags = {
    bundle: Flags.string({ required: true, description: 'Bundle directory (holds config.json).' }),
    runtime: Flags.string({
      options: [...RUNTIME_NAMES],
      default: DEFAULT_RUNTIME,
      description: 'Process runtime for the shim.',
    }),
    tty: Flags.boolean({
      char: 't',
      default: false,
      description: 'Run on a pseudo-terminal (raw mode, window size followed); standard input must be a terminal.',
    }),
    id: Flags.string({ description: 'Task id [default: run-<random>].' }),
    detach: Flags.boolean({
      char: 'd',
      default: false,
      exclusive: ['tty', 'rm'],
      description: 'Start the task without stdio, print its id and leave it running (see `skiff task ls`).',
    }),
    rm: Flags.boolean({
      default: false,
      description: 'Leave nothing behind even if skiff run is killed: its shim then ends the task and itself.',
    }),
    env: Flags.string({
      char: 'e',
      multiple: true,
      default: [],
      description: "NAME=value for the process, replacing the bundle's NAME (repeatable).",
    }),
    cwd: Flags.string({ description: "Working directory of the process (absolute), instead of the bundle's." }),
  };

  protected override appConfig(): AppConfig {
    return { run: true };
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(Run);
    const input = {
      id: flags.id ?? `run-${randomBytes(4).toString('hex')}`,
      bundle: resolve(flags.bundle),
      runtime: flags.runtime,
      overrides: { env: flags.env, cwd: flags.cwd },
    };
    const explained = (err: unknown) =>
      explainBundleError(err, input.bundle, flags.id === undefined ? input.id : undefined);
    if (flags.detach) {
      await this.resolve(RunDetached)
        .execute(input)
        .catch((err: unknown) => Promise.reject(explained(err)));
      this.log(input.id);
      return;
    }
    if (flags.tty && !process.stdin.isTTY) {
      // A terminal's end-of-file is a keystroke (Ctrl-D), which a pipe or a file never sends.
      throw new UsageError(
        '--tty needs a terminal on standard input (here it is a pipe or a file); leave out --tty to pass the input through',
        'RUN.TTY_STDIN',
      );
    }
    const status = await this.resolve(RunBundle)
      .execute({ ...input, terminal: flags.tty, rm: flags.rm })
      .catch((err: unknown) => Promise.reject(explained(err)));
    this.exit(status);
  }
}

/** What --bundle must be, after a message that says it is not. */
const BUNDLE_HINT = "; pass --bundle the directory that holds the task's OCI config.json";

/**
 * A bad --bundle's message names the bundle and what to do. A task id the user never
 * chose (`run-<random>`) is no help in a message either: the shim's `task "run-1a2b3c4d": `
 * becomes `bundle <path>: `.
 */
function explainBundleError(err: unknown, bundle: string, generatedId: string | undefined): unknown {
  if (!(err instanceof Error)) return err;
  if (err instanceof InvalidArgumentError && (err.code === 'BUNDLE.MISSING' || err.code === 'BUNDLE.NOT_DIRECTORY')) {
    err.message += BUNDLE_HINT;
  }
  const prefix = generatedId === undefined ? undefined : `task ${JSON.stringify(generatedId)}: `;
  if (prefix !== undefined && err.message.startsWith(prefix)) {
    err.message = `bundle ${bundle}: ${err.message.slice(prefix.length)}`;
  }
  return err;
}
