import { Flags } from '@oclif/core';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../../../../domain/shared/errors';
import { RUN_DIRECTORY, RunDirectory } from '../../../../application/shim/ports/run-directory.port';
import {
  TASK_CLIENT_FACTORY,
  TaskClient,
  TaskClientFactory,
} from '../../../../application/shim/ports/task-client.port';
import { AppConfig } from '../../../../infrastructure/shared/app-config';
import { ADDRESS_VARIABLE, defaultAddress } from '../../../../infrastructure/shim/shim-config';
import { fsReason } from '../../../shared/helpers/make-dirs';
import { checkPrivateDir } from '../../../shared/helpers/private-dir';
import { BaseCommand } from '../../../shared/inbound/cli/base-command';

/** Flags every `skiff task` command shares, and the connection to the shim. */
export abstract class TaskCommand extends BaseCommand {
  static override enableJsonFlag = true;
  static override baseFlags = {
    address: Flags.string({
      env: ADDRESS_VARIABLE,
      description:
        'Socket of the shim (the --address of `skiff shim serve`) [default: the shim of the `skiff run` ' +
        'whose --id this is, else the default socket of `skiff shim serve`].',
    }),
  };

  private connection: TaskClient | undefined;

  protected override appConfig(): AppConfig {
    return { taskClient: true };
  }

  protected client(flags: { address?: string; id?: string }): TaskClient {
    this.connection ??= this.resolve<TaskClientFactory>(TASK_CLIENT_FACTORY).connect(this.address(flags));
    return this.connection;
  }

  /** --address, else $SKIFF_ADDRESS (oclif reads it into the flag), else the run with this id, else the default socket. */
  protected address(flags: { address?: string; id?: string }): string {
    const chosen = flags.address ?? this.runAddress(flags);
    if (chosen !== undefined) return chosen;
    checkPrivateDir(dirname(defaultAddress()));
    return defaultAddress();
  }

  /** The socket of the `skiff run` whose task this is, when no address was given. */
  protected runAddress(flags: { address?: string; id?: string }): string | undefined {
    if (flags.address !== undefined || flags.id === undefined) return undefined;
    return this.resolve<RunDirectory>(RUN_DIRECTORY).addressOf(flags.id);
  }

  protected override async finally(err: Error | undefined): Promise<void> {
    this.connection?.close();
    await super.finally(err);
  }
}

export const idFlag = Flags.string({ required: true, description: 'Task id.' });
export const execIdFlag = Flags.string({
  default: '',
  description: "Exec id of an additional process (empty: the task's init).",
});

/**
 * A stdio path as typed: relative to the current directory, as --bundle is (the shim
 * takes absolute paths only); empty (no stream) and file:// URIs pass unchanged.
 */
function stdioPath(value: string): string {
  return value === '' || value.startsWith('file://') ? value : resolve(value);
}

/** The three stdio flags of `task create` and `task exec`, resolved. */
export function stdioOf(flags: { stdin: string; stdout: string; stderr: string }) {
  return { stdin: stdioPath(flags.stdin), stdout: stdioPath(flags.stdout), stderr: stdioPath(flags.stderr) };
}

/** The text of a file a flag names (`--spec`, `--resources @file`); one that cannot be read is a usage error. */
export function readFlagFile(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${flag} ${path}: ${fsReason(err)}`, 'CLI.FLAG_FILE');
  }
}
