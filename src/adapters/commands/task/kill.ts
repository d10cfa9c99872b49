import { Flags } from '@oclif/core';
import { constants } from 'node:os';
import { UsageError } from '../../../domain/shared/errors';
import { execIdFlag, idFlag, TaskCommand } from '../../shim/inbound/cli/task-command';

/** A signal given as a number, or a name with or without SIG (TERM, SIGKILL). */
export function parseSignal(value: string): number {
  if (/^\d+$/.test(value)) return Number(value);
  const name = value.toUpperCase().startsWith('SIG') ? value.toUpperCase() : `SIG${value.toUpperCase()}`;
  const number = (constants.signals as Record<string, number>)[name];
  if (number === undefined)
    throw new UsageError(
      `unknown signal ${JSON.stringify(value)}: use a name like TERM or KILL, or a number`,
      'CLI.SIGNAL',
    );
  return number;
}

export default class TaskKill extends TaskCommand {
  static override summary = 'Send a signal to a process, or with --all to every process of the task (Kill).';
  static override examples = [
    '<%= config.bin %> task kill --id web --signal TERM',
    '<%= config.bin %> task kill --id web --signal 9 --all',
  ];
  static override flags = {
    id: idFlag,
    'exec-id': execIdFlag,
    signal: Flags.string({ char: 's', default: 'SIGTERM', description: 'Signal name (TERM, SIGKILL) or number.' }),
    all: Flags.boolean({ default: false, description: 'Signal every process of the task, not only its init.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(TaskKill);
    await this.client(flags).kill({
      id: flags.id,
      execId: flags['exec-id'],
      signal: parseSignal(flags.signal),
      all: flags.all,
    });
  }
}
